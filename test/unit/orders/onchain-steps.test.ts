import { describe, expect, it } from "vitest";
import { confirmationSteps, isPendingOnchain } from "#src/orders/mapping.js";

describe("on-chain confirmation stages", () => {
  it("fills in the counts a check did not see one by one, before the state it found", () => {
    expect(confirmationSteps(0, { stage: "payout_sent", confirmations: 2 })).toEqual([
      { stage: "payout_sent", confirmations: 1 },
    ]);
    expect(confirmationSteps(0, { stage: "completed", confirmations: 3 })).toEqual([
      { stage: "payout_sent", confirmations: 1 },
      { stage: "payout_sent", confirmations: 2 },
    ]);
    expect(confirmationSteps(2, { stage: "completed", confirmations: 5 })).toEqual([]);
  });

  it("adds nothing for one block at a time, a repeat, or an order that was not counting yet", () => {
    expect(confirmationSteps(1, { stage: "payout_sent", confirmations: 2 })).toEqual([]);
    expect(confirmationSteps(2, { stage: "payout_sent", confirmations: 2 })).toEqual([]);
    expect(confirmationSteps(undefined, { stage: "completed", confirmations: 3 })).toEqual([]);
    expect(confirmationSteps(0, { stage: "failed", confirmations: 0 })).toEqual([]);
  });

  it("keeps the rest of the order in each step (the card shows the txid with the count)", () => {
    const [step] = confirmationSteps(0, { stage: "completed", confirmations: 2, txid: "ab" });
    expect(step).toEqual({ stage: "payout_sent", confirmations: 1, txid: "ab" });
  });

  it("polls fast only withdrawals that are sent and waiting for blocks", () => {
    expect(isPendingOnchain({ kind: "buy", stage: "payout_sent" })).toBe(true);
    expect(isPendingOnchain({ kind: "payout", stage: "payout_sent", confirmations: 1 })).toBe(true);
    expect(isPendingOnchain({ kind: "payout", stage: "payout_sent" })).toBe(false);
    expect(isPendingOnchain({ kind: "buy", stage: "payment_received" })).toBe(false);
    expect(isPendingOnchain({ kind: "buy", stage: "completed", confirmations: 3 })).toBe(false);
  });
});
