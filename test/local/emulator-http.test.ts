import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";

let tg: TelegramEmulator;
beforeEach(async () => {
  tg = await startTelegramEmulator();
});
afterEach(async () => {
  await tg.close();
});

async function call(method: string, body?: unknown, init: { token?: string; raw?: RequestInit } = {}) {
  const response = await fetch(`${tg.apiRoot}/bot${init.token ?? tg.token}/${method}`, {
    method: "POST",
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    ...init.raw,
  });
  return { status: response.status, json: (await response.json()) as ApiAnswer };
}

/** Loose view of a Bot API answer for raw-HTTP assertions. */
// biome-ignore lint/suspicious/noExplicitAny: raw JSON from the wire, checked by the assertions
type ApiAnswer = Record<string, any>;

const keyboard = (button: Record<string, unknown>) => ({ inline_keyboard: [[{ text: "Go", ...button }]] });

describe("the Bot API surface over HTTP", () => {
  it("exposes a grammY-compatible apiRoot and a BotFather-shaped token", () => {
    expect(tg.apiRoot).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(tg.token).toMatch(/^\d+:[A-Za-z0-9_-]{35}$/);
    expect(tg.token.startsWith(`${tg.bot.id}:`)).toBe(true);
  });

  it("answers 404 for unknown methods and 401 for a wrong token, like Telegram", async () => {
    expect(await call("sendTelepathy", {})).toEqual({
      status: 404,
      json: { ok: false, error_code: 404, description: "Not Found" },
    });
    expect(await call("getMe", undefined, { token: "123:wrong" })).toEqual({
      status: 401,
      json: { ok: false, error_code: 401, description: "Unauthorized" },
    });
    const other = await fetch(`${tg.apiRoot}/something`);
    expect(other.status).toBe(404);
  });

  it("accepts method names in any case and parameters as query, form or JSON", async () => {
    const me = await call("GETME");
    expect(me.json).toMatchObject({
      ok: true,
      result: { id: tg.bot.id, is_bot: true, username: tg.bot.username },
    });
    const user = tg.user({ id: 42, first_name: "Q", started: true });
    const viaQuery = await fetch(`${tg.apiRoot}/bot${tg.token}/sendMessage?chat_id=42&text=from%20query`);
    expect(((await viaQuery.json()) as ApiAnswer).result.text).toBe("from query");
    const viaForm = await call("sendmessage", undefined, {
      raw: {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          chat_id: "42",
          text: "from form",
          reply_markup: JSON.stringify(keyboard({ callback_data: "x" })),
        }).toString(),
      },
    });
    expect(viaForm.json.result.reply_markup).toEqual(keyboard({ callback_data: "x" }));
    const viaJson = await call("sendMessage", { chat_id: "42", text: "from json" });
    expect(viaJson.json.result.chat.id).toBe(42);
    expect(user.messages().map((m) => m.text)).toEqual(["from query", "from form", "from json"]);
    const ids = user.messages().map((m) => m.message_id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(3);
    expect(tg.calls().map((c) => c.method)).toEqual(["getMe", "sendMessage", "sendMessage", "sendMessage"]);
  });

  it("enforces Telegram's text limits with its descriptions", async () => {
    tg.user({ id: 7, first_name: "T", started: true });
    expect((await call("sendMessage", { chat_id: 7, text: "" })).json).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: message text is empty",
    });
    expect((await call("sendMessage", { chat_id: 7, text: "a".repeat(4097) })).json.description).toBe(
      "Bad Request: message is too long",
    );
    expect((await call("sendMessage", { chat_id: 7, text: "a".repeat(4096) })).json.ok).toBe(true);
    // The limit applies to the text after HTML parsing.
    const html = `<b>${"a".repeat(4096)}</b>`;
    expect((await call("sendMessage", { chat_id: 7, text: html, parse_mode: "HTML" })).json.ok).toBe(true);
    expect(
      (await call("sendMessage", { chat_id: 7, text: "<b>open", parse_mode: "HTML" })).json.description,
    ).toBe(`Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`);
    expect(
      (await call("sendMessage", { chat_id: 7, text: "1 <2", parse_mode: "HTML" })).json.description,
    ).toMatch(/^Bad Request: can't parse entities: /);
    const link = await call("sendMessage", {
      chat_id: 7,
      text: 'Pay <a href="https://example.com/x?a=1&amp;b=2">here</a> <code>lnbc1</code>',
      parse_mode: "HTML",
    });
    expect(link.json.result.text).toBe("Pay here lnbc1");
    expect(link.json.result.entities).toEqual([
      { type: "text_link", offset: 4, length: 4, url: "https://example.com/x?a=1&b=2" },
      { type: "code", offset: 9, length: 5 },
    ]);
  });

  it("rejects callback data over 64 bytes and URL buttons that are not http(s):// or tg://", async () => {
    tg.user({ id: 7, first_name: "T", started: true });
    const send = (button: Record<string, unknown>) =>
      call("sendMessage", { chat_id: 7, text: "x", reply_markup: keyboard(button) });
    expect((await send({ callback_data: "é".repeat(32) })).json.ok).toBe(true); // 64 bytes
    expect((await send({ callback_data: `${"é".repeat(32)}x` })).json).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: BUTTON_DATA_INVALID",
    });
    expect((await send({ url: "tg://resolve?domain=payout_bot" })).json.ok).toBe(true);
    expect((await send({ url: "https://t.me/payout_bot?start=abc" })).json.ok).toBe(true);
    expect((await send({ url: "lightning:lnbc10u1p3xyz" })).json.description).toBe(
      "Bad Request: inline keyboard button URL 'lightning:lnbc10u1p3xyz' is invalid: Unsupported URL protocol",
    );
    expect((await send({})).json.description).toBe(
      "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
    );
    // copy_text holds at most 256 characters: fine for an account number, too short for most invoices.
    expect((await send({ copy_text: { text: "x".repeat(257) } })).json.error_code).toBe(400);
    expect((await send({ copy_text: { text: "0123456789" } })).json.ok).toBe(true);
  });

  it("answers 413 for bodies over the upload limit", async () => {
    await tg.close();
    tg = await startTelegramEmulator({ maxUploadBytes: 1024 });
    tg.user({ id: 7, first_name: "T", started: true });
    const big = await call("sendMessage", { chat_id: 7, text: "x".repeat(2000) });
    expect(big).toEqual({
      status: 413,
      json: { ok: false, error_code: 413, description: "Request Entity Too Large" },
    });
  });

  it("ends an older long poll with 409 when a newer one arrives, and refuses getUpdates while a webhook is set", async () => {
    const first = call("getUpdates", { timeout: 30 });
    await tg.waitForPoll();
    const second = call("getUpdates", { timeout: 0 });
    expect((await first).json).toEqual({
      ok: false,
      error_code: 409,
      description:
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    });
    expect((await second).json).toEqual({ ok: true, result: [] });
    await call("setWebhook", { url: "http://127.0.0.1:9/hook" });
    expect((await call("getUpdates", {})).json.description).toBe(
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
    expect((await call("deleteWebhook", {})).json.ok).toBe(true);
  });

  it("confirms updates by offset and honours limit and allowed_updates", async () => {
    const user = tg.user({ id: 9, first_name: "U" });
    for (const text of ["one", "two", "three"]) await user.send(text);
    const page = (await call("getUpdates", { limit: 2 })).json.result as {
      update_id: number;
      message: { text: string };
    }[];
    expect(page.map((u) => u.message.text)).toEqual(["one", "two"]);
    const rest = (await call("getUpdates", { offset: page[1]!.update_id + 1 })).json.result as typeof page;
    expect(rest.map((u) => u.message.text)).toEqual(["three"]);
    expect(tg.pendingUpdates()).toHaveLength(1);
    await call("getUpdates", { offset: rest[0]!.update_id + 1, timeout: 0 });
    expect(tg.pendingUpdates()).toHaveLength(0);
    await user.send("ignored");
    const sent = await call("sendMessage", {
      chat_id: 9,
      text: "press",
      reply_markup: keyboard({ callback_data: "p" }),
    });
    await user.press(sent.json.result.message_id, "Go");
    const onlyCallbacks = (await call("getUpdates", { allowed_updates: ["callback_query"] })).json.result;
    expect(onlyCallbacks.map((u: Record<string, unknown>) => Object.keys(u).sort())).toEqual([
      ["callback_query", "update_id"],
    ]);
  });
});
