import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "#src/standins/local/redis-server.js";
import { type Stack, startStack } from "../support/stack.ts";

/** BOT_MODE=webhook: Telegram pushes updates to /webhooks/telegram on our HTTP server, with its secret header. */
describe("webhook mode", () => {
  let stack: Stack;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    stack = await startStack({
      env: { BOT_MODE: "webhook", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("registers the webhook with a secret token and serves updates pushed to it", async () => {
    const info = stack.tg.webhookInfo();
    expect(info.url).toBe(`http://127.0.0.1:${port}/webhooks/telegram`);
    const user = stack.tg.user({ id: 9_601, first_name: "Efua" });
    await user.send("/start");
    const welcome = await user.nextMessage();
    expect(welcome.text).toContain("Hi Efua");
    await user.send("/send");
    const countries = await user.nextMessage({ match: /Where does it go/ });
    const press = await user.press(countries, /Ghana/);
    await press.answer();
    await user.nextEdit(countries);
  });

  it("refuses updates without the secret token", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/webhooks/telegram`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "wrong" },
      body: JSON.stringify({
        update_id: 1,
        message: { message_id: 1, date: 0, chat: { id: 1, type: "private" } },
      }),
    });
    expect(response.status).toBe(401);
  });
});
