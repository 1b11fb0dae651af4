import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "#src/store/index.js";
import { chatTexts, eventually, type Harness, settled, startHarness } from "./harness.ts";

let h: Harness;

beforeAll(async () => {
  // One message per chat at once, then one per 1.5 s: a status card edit spends the chat's token, and the
  // notification that follows it waits in the outbound pacer.
  h = await startHarness({
    pacing: { chatBurst: 1, chatIntervalMs: 1_500 },
    pipeline: { followUpMs: 600_000 },
  });
  await h.newPipeline().start();
});
afterAll(async () => {
  await h?.close();
});

describe("a notification's sending mark", () => {
  it("is set as the call leaves, not while the pacer holds it: a crash during the wait would leave it unsent and unmarked", async () => {
    const placed = await h.placeOrder({ corridor: "NG", userId: 3101 });
    const { orderId } = placed.order;
    const chatId = placed.user.chatId;
    const sentTo = (method: string) =>
      h.tg.callsTo(method).filter((call) => String(call.params.chat_id) === String(chatId) && call.ok);
    // The status card itself was sent when the order was confirmed.
    const before = sentTo("sendMessage").length;
    await h.pay(placed);

    // The card was edited to "payment received"; its notification waits for the chat's next token.
    await eventually(() => sentTo("editMessageText").length > 0, "the status card edited");
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(sentTo("sendMessage")).toHaveLength(before);
    // Not marked: had the process died now, the next delivery would send it (a mark would have it not sent again).
    expect((await h.redis.get(keys.outboxCursor(orderId))) ?? "").not.toContain(":");

    await eventually(() => sentTo("sendMessage").length > before, "the notification sent", 10_000);
    await eventually(async () => (await h.store.orders.get(orderId))?.stage === "completed", "completed");
    await settled(h, [orderId]);
    expect(chatTexts(placed.user).slice(1)).toEqual([
      expect.stringMatching(/Payment received/),
      expect.stringMatching(/delivered to/),
    ]);
    // Delivered: the cursor is past both, with no mark left.
    expect(await h.redis.get(keys.outboxCursor(orderId))).toMatch(/^\d+$/);
  });
});
