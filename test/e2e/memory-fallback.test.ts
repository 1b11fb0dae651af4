import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpsAlert } from "#src/events/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import { buttons, confirmQuote, nigerianRecipient, quoteFor } from "./payout-support.ts";

const SIX_MINUTES = 6 * 60_000;

/**
 * Local mode's fallback when a machine has no Redis at all: the store on the in-memory Redis stand-in and the
 * events pipeline on in-process queues. The product must behave as it does on Redis — the same journeys, the live
 * status card, the reconciler's proactive expiry, ops alerts — only nothing outlives the process.
 */
describe("in-memory fallback (no Redis on the machine)", () => {
  let stack: Stack;
  const alerts: OpsAlert[] = [];
  beforeAll(async () => {
    stack = await startStack({ memory: true, hooks: { onAlert: (alert) => alerts.push(alert) } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("runs on the in-process queues", async () => {
    expect(stack.app.events.queueBackend).toBe("memory");
    expect(await stack.app.events.stats()).toMatchObject({ "payout-events": { failed: 0 } });
  });

  it("a payout is paid and the one status card follows it to completed, with one notification per step", async () => {
    const user = stack.tg.user({ id: 7801, first_name: "Bola" });
    await nigerianRecipient(user);
    const { invoice, status } = await confirmQuote(user, await quoteFor(user, "10000"));
    await (await user.press(invoice, /Simulate/)).answer();
    const completed = await user.nextEdit(status, { match: /Completed/ });
    expect(completed.text).toMatch(/Payout reference: /);
    await stack.tg.idle();
    const notes = user
      .events()
      .filter(
        (event) =>
          event.kind === "message" &&
          /Payment received for order|delivered to/.test(event.message.text ?? ""),
      );
    expect(notes).toHaveLength(2);
  });

  it("an unconfirmed quote expires on time: the reconciler edits the card", async () => {
    const user = stack.tg.user({ id: 7802, first_name: "Musa" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "7,500");
    await stack.advanceClock(SIX_MINUTES);
    const expired = await user.nextEdit(card, { match: /This quote expired/ });
    expect(buttons(expired)).toEqual(["🔁 New quote"]);
  });

  it("a failed payout ends on the failed card and raises an ops alert once", async () => {
    const user = stack.tg.user({ id: 7803, first_name: "Tunde" });
    await nigerianRecipient(user, { account: "0123456999" });
    const { invoice, status } = await confirmQuote(user, await quoteFor(user, "4000"));
    await (await user.press(invoice, /Simulate/)).answer();
    const failed = await user.nextEdit(status, { match: /Failed/ });
    expect(failed.text).toMatch(/transfer to the recipient failed/);
    await stack.tg.idle();
    expect(alerts.filter((alert) => alert.type === "order_failed")).toHaveLength(1);
  });
});
