import { describe, expect, it } from "vitest";
import { keepOrderText, parseOrderText } from "#src/store/order-record.js";
import { ngnOrder } from "../../support/store-fixtures.ts";

function stored(orderId: string) {
  const now = new Date().toISOString();
  return { ...ngnOrder(orderId), stage: "awaiting_payment" as const, createdAt: now, updatedAt: now };
}

describe("order texts", () => {
  it("parses a text once and shares its record, frozen all the way down", () => {
    const text = JSON.stringify(stored("texts-1"));
    const first = parseOrderText(text);
    expect(first).toMatchObject({ orderId: "texts-1", stage: "awaiting_payment" });
    // The same text (another string with the same characters, as Redis hands it back) is the same record.
    expect(parseOrderText(`${text} `.trimEnd())).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.pay)).toBe(true);
    expect(() => {
      (first as { stage: string }).stage = "completed";
    }).toThrow(TypeError);
  });

  it("answers a text this process wrote with the record it wrote, and any other text by parsing it", () => {
    const order = stored("texts-2");
    const text = JSON.stringify(order);
    keepOrderText(text, order);
    expect(parseOrderText(text)).toBe(order);
    const changed = JSON.stringify({ ...order, stage: "payment_received" });
    expect(parseOrderText(changed)).toMatchObject({ stage: "payment_received" });
    expect(parseOrderText(changed)).not.toBe(order);
  });

  it("reads an absent, corrupt or outdated text as no order", () => {
    expect(parseOrderText(null)).toBeUndefined();
    expect(parseOrderText("{not json")).toBeUndefined();
    expect(parseOrderText(JSON.stringify({ orderId: "texts-3" }))).toBeUndefined();
  });

  it("keeps a bounded number of texts: the oldest is parsed again after many others", () => {
    const oldest = JSON.stringify(stored("texts-oldest"));
    const kept = parseOrderText(oldest);
    for (let i = 0; i < 600; i += 1) parseOrderText(JSON.stringify(stored(`texts-many-${i}`)));
    const again = parseOrderText(oldest);
    expect(again).toEqual(kept);
    expect(again).not.toBe(kept);
  });
});
