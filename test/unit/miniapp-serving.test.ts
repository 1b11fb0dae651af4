import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import type { BotDeps } from "#src/bot/context.js";
import { miniAppRoutes } from "#src/bot/merchant/dashboard/routes.js";
import { miniAppUrl } from "#src/bot/rules/miniapp-menu.js";
import type { Config } from "#src/config.js";

/** Telegram opens Mini Apps over https only: production serves the page only behind an https PUBLIC_URL. */
describe("where the merchant Mini App is served", () => {
  const config = (nodeEnv: string, publicUrl?: string) =>
    ({ nodeEnv, http: { publicUrl } }) as unknown as Config;
  const serves = async (nodeEnv: string, publicUrl?: string) => {
    const written: number[] = [];
    const res = { writeHead: (status: number) => written.push(status), end: () => undefined };
    const handled = await miniAppRoutes({ config: config(nodeEnv, publicUrl) } as BotDeps, "1:x")(
      { method: "GET", headers: {} } as IncomingMessage,
      res as unknown as ServerResponse,
      "/miniapp/",
    );
    return handled && written[0] === 200;
  };

  it("the button's address exists only for an https PUBLIC_URL", () => {
    expect(miniAppUrl(config("production", "https://bot.example/"))).toBe("https://bot.example/miniapp/");
    expect(miniAppUrl(config("production", "http://bot.example"))).toBeUndefined();
    expect(miniAppUrl(config("production"))).toBeUndefined();
  });

  it("production without an https PUBLIC_URL serves nothing; development and tests serve the page locally", async () => {
    expect(await serves("production", "http://bot.example")).toBe(false);
    expect(await serves("production")).toBe(false);
    expect(await serves("production", "https://bot.example")).toBe(true);
    expect(await serves("development")).toBe(true);
  });
});
