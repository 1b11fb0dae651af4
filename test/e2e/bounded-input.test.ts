import { Composer } from "grammy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BotContext } from "#src/bot/context.js";
import { allFeatures } from "#src/bot/features.js";
import { CALLBACK_PREFIXES } from "../support/callback-prefixes.ts";
import { captureLog } from "../support/log-capture.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { pressAndEdit, startSend, typeAndRead } from "./payout-support.ts";

const STALE = "This button belongs to an older screen. Use /start for the menu.";
/** The payout flow's own stale toast (an order-shaped id that is no order of this user). */
const PAYOUT_STALE = "This button belongs to an earlier step. Use the latest message, or /cancel.";

/** Data no button of ours ever carries: bad numbers, extra fields, wrong id shapes, 64 bytes of junk. */
function forgedFor(prefix: string): string[] {
  const fill = (head: string) => `${head}${"9".repeat(Math.max(0, 64 - head.length))}`;
  return [
    `${prefix}:-1`,
    `${prefix}:1e309`,
    `${prefix}:NaN`,
    `${prefix}:Infinity`,
    `${prefix}:page:-5`,
    `${prefix}:page:1e309`,
    `${prefix}:page:0x10`,
    `${prefix}:page:00001`,
    `${prefix}:view:1:2`,
    `${prefix}:send:../../x`,
    `${prefix}:a:b:c:d`,
    `${prefix}:`,
    `${prefix}:<b>&amp;`,
    `${prefix}:${"é".repeat(20)}`,
    fill(`${prefix}:page:`),
    fill(`${prefix}:`),
  ].filter((data) => Buffer.byteLength(data) <= 64);
}

describe("bounded input", () => {
  let stack: Stack;
  const log = captureLog();
  beforeAll(async () => {
    stack = await startStack({ logger: log.logger });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const rejections = () =>
    stack.tg
      .calls()
      .filter((call) => !call.ok && !call.fault && !/message is not modified/i.test(call.description ?? ""));

  it("a 4,096-character bank search is quoted back short and the payout goes on", async () => {
    const user = stack.tg.user({ id: 71_001, first_name: "Long", language_code: "en" });
    const countries = await startSend(user);
    await pressAndEdit(user, countries, /Nigeria/, /Which bank/);
    const line = `gtb${"x".repeat(4093)}`;
    const reply = await typeAndRead(user, line, /No bank matches/);
    expect(reply.text!.length).toBeLessThan(1000);
    expect(reply.text).toContain("…");
    expect(reply.text).not.toContain("x".repeat(49));
    // Still in the flow: a real search works.
    const results = await typeAndRead(user, "gtb", /Banks matching/);
    expect(results.text).toContain("gtb");
    // HTML-like and RTL input is quoted as text.
    const html = await typeAndRead(user, "<b>bank</b> & مصرف", /No bank matches/);
    expect(html.text).toContain("<b>bank</b> & مصرف");
    expect(html.entities?.some((entity) => entity.type === "bold" && entity.length === 4)).not.toBe(true);
    expect(rejections()).toEqual([]);
    expect(log.errors()).toEqual([]);
  });

  it("forged callback data gets the older-screen toast, answered exactly once, and never reaches Redis", async () => {
    const user = stack.tg.user({ id: 71_002, first_name: "Forger", language_code: "en" });
    await user.send("/start");
    const menu = await user.nextMessage({ match: /./ });
    const datas = ["hist:page:1e309", ...CALLBACK_PREFIXES.flatMap(forgedFor)];
    const presses = [];
    for (const data of datas) {
      const press = await user.pressData(menu, data);
      const answer = await press.answer();
      presses.push({ data, queryId: press.queryId, text: answer.text });
    }
    await stack.tg.idle({ quietMs: 300 });
    const answers = user.callbackAnswers();
    for (const press of presses) {
      expect
        .soft(
          answers.filter((answer) => answer.queryId === press.queryId),
          press.data,
        )
        .toHaveLength(1);
      expect.soft([STALE, PAYOUT_STALE], press.data).toContain(press.text);
    }
    expect(rejections()).toEqual([]);
    expect(log.errors()).toEqual([]);
    // Nothing but toasts: no "Something went wrong" message.
    expect(user.unconsumed().filter((event) => event.kind === "message")).toEqual([]);
  });

  it("a forged page inside a flow's screen is stale too, and the flow keeps its place", async () => {
    const user = stack.tg.user({ id: 71_003, first_name: "Flow", language_code: "en" });
    const countries = await startSend(user);
    const banks = await pressAndEdit(user, countries, /South Africa/);
    for (const data of ["po-z:1e309", "po-z:-1", "po-z:1000", "po-c:XX", "po-a:nope", "po-b:1e9x"]) {
      const answer = await (await user.pressData(banks, data)).answer();
      expect(answer.text, data).toBe(STALE);
    }
    await stack.tg.idle({ quietMs: 300 });
    expect(rejections()).toEqual([]);
    expect(log.errors()).toEqual([]);
    expect(log.warnings("outgoing Telegram text over the limit: cut")).toBe(0);
  });
});

describe("one answer per button press", () => {
  let stack: Stack;
  const log = captureLog();
  beforeAll(async () => {
    // Two handlers that answer first: one then fails, one then passes the update on.
    const composer = new Composer<BotContext>();
    composer.callbackQuery("test:fail", async (ctx) => {
      await ctx.answerCallbackQuery({ text: "working on it" });
      throw new Error("failure after the answer");
    });
    composer.callbackQuery("test:pass", async (ctx, next) => {
      await ctx.answerCallbackQuery({ text: "seen" });
      await next();
    });
    stack = await startStack({
      logger: log.logger,
      features: (deps) => [...allFeatures(deps), { name: "test", composer }],
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("a handler that answered and then failed or passed on is not answered again", async () => {
    const user = stack.tg.user({ id: 71_004, first_name: "Once", language_code: "en" });
    await user.send("/start");
    const menu = await user.nextMessage({ match: /./ });
    const failed = await user.pressData(menu, "test:fail");
    expect((await failed.answer()).text).toBe("working on it");
    // The failure is still explained, in the chat instead of a second toast.
    await user.nextMessage({ match: /Something went wrong/ });
    const passed = await user.pressData(menu, "test:pass");
    expect((await passed.answer()).text).toBe("seen");
    await stack.tg.idle({ quietMs: 300 });
    const answers = stack.tg.callsTo("answerCallbackQuery");
    expect(answers.map((call) => [call.params.callback_query_id, call.ok])).toEqual([
      [failed.queryId, true],
      [passed.queryId, true],
    ]);
    expect(log.errors().map((entry) => entry.msg)).toEqual(["update handler failed"]);
  });
});
