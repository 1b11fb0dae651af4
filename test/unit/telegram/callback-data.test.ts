import { describe, expect, it } from "vitest";
import { HISTORY_OFFSET, historyData } from "#src/bot/account/callback-data/history.js";
import { priceData } from "#src/bot/account/callback-data/price.js";
import {
  RECIPIENT_ID,
  RECIPIENTS_OFFSET,
  recipientsData,
} from "#src/bot/account/callback-data/recipients.js";
import { statusData } from "#src/bot/account/callback-data/status.js";
import { buyData } from "#src/bot/buy/callback-data.js";
import { cancelData, languageData, menuData } from "#src/bot/flow/menu-data.js";
import { linkData, newlinkData } from "#src/bot/merchant/callback-data.js";
import { alertData, broadcastData, withdrawData } from "#src/bot/ops/callback-data.js";
import {
  PAYOUT_FLOW_DATA,
  payoutAction,
  payoutBankData,
  payoutConfirmData,
  payoutCountryData,
  payoutZaBankData,
} from "#src/bot/payout/callback-data.js";
import { approvalData } from "#src/bot/rules/approval-data.js";
import { parseOrderCallback } from "#src/orders/index.js";
import { CallbackDataTooLongError, defineCallbackData, int } from "#src/telegram/callback-data.js";

describe("typed callback data", () => {
  it("packs, unpacks and filters", () => {
    const packed = menuData.pack({ action: "send" });
    expect(packed).toBe("menu:send");
    expect(menuData.unpack(packed)).toEqual({ action: "send" });
    expect(menuData.filter({ action: "send" }).test(packed)).toBe(true);
    expect(menuData.filter({ action: "buy" }).test(packed)).toBe(false);
    expect(cancelData.pack({})).toBe("cancel");
    expect(cancelData.parse("cancel")).toEqual({});
    expect(cancelData.parse("cancel:x")).toBeUndefined();
  });

  it("keeps the field order of buttons already in chats (alphabetical)", () => {
    expect(historyData.pack({ action: "page", value: "5" })).toBe("hist:page:5");
    expect(approvalData.pack({ action: "a", id: "0123456789" })).toBe("apv:a:0123456789");
    expect(payoutZaBankData.pack({ index: 12 })).toBe("po-z:12");
    expect(payoutZaBankData.parse("po-z:12")).toEqual({ index: 12 });
    expect(newlinkData.pack({ action: "skip", value: "" })).toBe("nl:skip:");
    expect(buyData.pack({ action: "retry", value: "" })).toBe("buy:retry:");
  });

  it("refuses callback data over Telegram's 64-byte limit", () => {
    const invoiceData = defineCallbackData("inv", { invoice: /.+/ });
    expect(() => invoiceData.pack({ invoice: "lntbs60160n1p5dmrdppp5".repeat(4) })).toThrow(
      CallbackDataTooLongError,
    );
    // multi-byte characters count as bytes, not characters
    expect(() => invoiceData.pack({ invoice: "₦".repeat(21) })).toThrow(CallbackDataTooLongError);
    expect(invoiceData.pack({ invoice: "₦".repeat(19) })).toHaveLength(4 + 19);
    expect(invoiceData.parse(`inv:${"₦".repeat(21)}`)).toBeUndefined();
  });

  it("refuses to pack a value outside its field", () => {
    expect(() => menuData.pack({ action: "drop_tables" })).toThrow(RangeError);
    expect(() => payoutZaBankData.pack({ index: -1 })).toThrow(RangeError);
    expect(() => payoutZaBankData.pack({ index: 1.5 })).toThrow(RangeError);
    expect(() => historyData.pack({ action: "view", value: "a:b" })).toThrow(RangeError);
  });

  it("integers: digits only, no sign, exponent, leading zero or fraction, bounded", () => {
    const page = historyData.filter({ action: "page", value: HISTORY_OFFSET });
    for (const good of ["hist:page:0", "hist:page:5", "hist:page:99999"])
      expect(page.test(good), good).toBe(true);
    for (const bad of [
      "hist:page:1e309",
      "hist:page:-5",
      "hist:page:NaN",
      "hist:page:Infinity",
      "hist:page:0x10",
      "hist:page:00001",
      "hist:page:1.5",
      "hist:page:100000",
      "hist:page:",
      "hist:page:5:6",
      "hist:page: 5",
      "hist:page:５",
    ])
      expect(page.test(bad), bad).toBe(false);
    const rows = defineCallbackData("t", { n: int(2) });
    expect(rows.parse("t:99")).toEqual({ n: 99 });
    expect(rows.parse("t:100")).toBeUndefined();
  });

  it("every codec refuses forged data: wrong actions, shapes, extra fields, junk", () => {
    const forged: Array<[{ parse(data: string): unknown }, string]> = [
      [menuData, "menu:admin"],
      [languageData, "lang:xx"],
      [languageData, "lang:en:1"],
      [payoutCountryData, "po-c:US"],
      [payoutBankData, "po-b:abc"],
      [payoutZaBankData, "po-z:1e309"],
      [payoutZaBankData, "po-z:1000"],
      [payoutConfirmData, "po-ok:../etc"],
      [payoutConfirmData, `po-ok:${"1".repeat(49)}`],
      [buyData, "buy:steal:1"],
      [historyData, "hist:view:<b>"],
      [recipientsData, "rcp:page:1:2"],
      [statusData, "st:delete:1-2"],
      [priceData, "price:XX"],
      [newlinkData, "nl:speed:ludicrous"],
      [linkData, "lnk:not-a-uuid"],
      [approvalData, "apv:a:zzzzzzzzzz"],
      [approvalData, "apv:x:0123456789"],
      [alertData, "alr:z:1-2"],
      [withdrawData, "wd:send:1"],
      [broadcastData, "bc:send:xyz"],
      [menuData, "x".repeat(64)],
    ];
    for (const [codec, data] of forged) expect(codec.parse(data), data).toBeUndefined();
    expect(recipientsData.filter({ action: "del", value: RECIPIENT_ID }).test("rcp:del:0123abcd")).toBe(true);
    expect(recipientsData.filter({ action: "del", value: RECIPIENT_ID }).test("rcp:del:5")).toBe(false);
    expect(
      recipientsData.filter({ action: "page", value: RECIPIENTS_OFFSET }).test("rcp:page:0123abcd"),
    ).toBe(false);
    expect(linkData.parse("lnk:123e4567-e89b-12d3-a456-426614174000")).toEqual({
      ref: "123e4567-e89b-12d3-a456-426614174000",
    });
  });

  it("the payout flow's own data is recognised exactly", () => {
    expect(PAYOUT_FLOW_DATA.test(payoutAction("refresh"))).toBe(true);
    expect(PAYOUT_FLOW_DATA.test("po-c:NG")).toBe(true);
    expect(PAYOUT_FLOW_DATA.test("po-a:nope")).toBe(false);
    expect(PAYOUT_FLOW_DATA.test("po-z:1e309")).toBe(false);
    expect(PAYOUT_FLOW_DATA.test("po-c:NG:extra")).toBe(false);
    expect(PAYOUT_FLOW_DATA.test("xpo-c:NG")).toBe(false);
  });

  it("order buttons parse strictly", () => {
    expect(parseOrderCallback("order:requote:123-456")).toEqual({ action: "requote", orderId: "123-456" });
    expect(parseOrderCallback("order:requote:123-456:x")).toBeUndefined();
    expect(parseOrderCallback("order:drop:123-456")).toBeUndefined();
    expect(parseOrderCallback("order:receipt:1e309$")).toBeUndefined();
  });
});
