import { describe, expect, it } from "vitest";
import { CallbackDataTooLongError, defineCallbackData, menuData } from "../../src/bot/callback-data/index.ts";

describe("typed callback data", () => {
  it("packs, unpacks and filters", () => {
    const packed = menuData.pack({ action: "send" });
    expect(packed).toBe("menu:send");
    expect(menuData.unpack(packed)).toEqual({ action: "send" });
    expect(menuData.filter({ action: "send" }).test(packed)).toBe(true);
    expect(menuData.filter({ action: "buy" }).test(packed)).toBe(false);
  });

  it("refuses callback data over Telegram's 64-byte limit", () => {
    const invoiceData = defineCallbackData("inv", { invoice: /.+/ });
    expect(() => invoiceData.pack({ invoice: "lntbs60160n1p5dmrdppp5".repeat(4) })).toThrow(
      CallbackDataTooLongError,
    );
    // multi-byte characters count as bytes, not characters
    expect(() => invoiceData.pack({ invoice: "₦".repeat(21) })).toThrow(CallbackDataTooLongError);
    expect(invoiceData.pack({ invoice: "₦".repeat(19) })).toHaveLength(4 + 19);
  });
});
