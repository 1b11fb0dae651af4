import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversationTransformers, createTelegramTransformers } from "#src/bot/telegram-transformers.js";
import { silentLogger } from "#src/log/logger.js";
import { type Stack, startStack } from "../support/stack.ts";
import { confirmQuote, nigerianRecipient, quoteFor } from "./payout-support.ts";

describe("the production outbound policy (throttler on)", () => {
  it("gives conversations no throttler: replayed calls must not queue in it again", () => {
    const all = createTelegramTransformers({
      throttle: true,
      onError: () => undefined,
      logger: silentLogger(),
    });
    // size guard, answered-queries registry, throttler, auto-retry, metrics tap (innermost first)
    expect(all).toHaveLength(5);
    const inConversation = conversationTransformers(all);
    // The size guard, the registry and auto-retry: the throttler (index 2) and the metrics tap (4) stay out.
    expect(inConversation.map((transformer) => all.indexOf(transformer))).toEqual([0, 1, 3]);
  });

  describe("new users' first replies while the global budget is spent", () => {
    let stack: Stack;
    /** What the pacer decided to wait (ms), in order; the waits themselves are skipped. */
    const waits: number[] = [];
    beforeAll(async () => {
      stack = await startStack({
        throttle: true,
        pacing: {
          globalBurst: 1,
          globalPerSecond: 1,
          marginMs: 0,
          sleep: async (ms) => {
            waits.push(ms);
          },
        },
      });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it("answers each /start at once, and only what the bot sends on its own waits for the global budget", async () => {
      const users = [9_601, 9_602, 9_603, 9_604, 9_605].map((id) => stack.tg.user({ id, first_name: "Ada" }));
      await Promise.all(users.map((user) => user.send("/start")));
      for (const user of users) expect((await user.nextMessage()).text).toBeTruthy();
      // Five replies against a budget of one a second: none of them queued for it.
      expect(waits).toEqual([]);
      // Messages sent outside any update's handling (as notifications are) still keep to the global budget: of two
      // at once, the second waits.
      await Promise.all([
        stack.app.bot.api.sendMessage(9_601, "one"),
        stack.app.bot.api.sendMessage(9_602, "two"),
      ]);
      expect(waits).toHaveLength(1);
      expect(waits[0]).toBeGreaterThan(0);
    }, 60_000);
  });

  describe("a whole payout journey", () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ throttle: true });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it("goes from /send to the invoice with the throttler on (each wait uses the driver's normal deadline)", async () => {
      const user = stack.tg.user({ id: 9_501, first_name: "Chidi" });
      await nigerianRecipient(user);
      const card = await quoteFor(user, "5000");
      const { photo, status } = await confirmQuote(user, card);
      expect(photo.photo?.length).toBeGreaterThan(0);
      expect(status.text).toMatch(/Waiting for payment/);
    }, 120_000);
  });
});
