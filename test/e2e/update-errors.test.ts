import { Composer } from "grammy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BotContext } from "#src/bot/context.js";
import { allFeatures } from "#src/bot/features.js";
import { keys } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";

/**
 * A handler that throws: bot.catch tells the user once and the update leaves the inbox (bot.handleUpdate throws its
 * BotError to the caller; the inbox hands it to bot.catch as bot.start and the runner do, so it is not retried).
 */
describe("an update whose handler throws", () => {
  let stack: Stack;
  beforeAll(async () => {
    const boom = new Composer<BotContext>();
    boom.command("boom", () => {
      throw new Error("boom");
    });
    stack = await startStack({
      features: (deps) => [{ name: "boom", composer: boom }, ...allFeatures(deps)],
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("is answered by bot.catch once and acknowledged, and the chat goes on", async () => {
    const user = stack.tg.user({ id: 9_801, first_name: "Ama" });
    await user.send("/boom");
    const apology = await user.nextMessage();
    expect(apology.text).toMatch(/went wrong/i);
    await stack.tg.idle({ quietMs: 1_500, timeoutMs: 15_000 });
    expect(user.messages().filter((message) => message.message_id > apology.message_id)).toEqual([]);
    expect(await stack.redis.llen(keys.updateQueue(String(user.id)))).toBe(0);
    await user.send("/start");
    expect((await user.nextMessage()).text).toContain("Ama");
  });
});
