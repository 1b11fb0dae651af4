import { describe, expect, it } from "vitest";
import { mpesaReceipt, nipSessionId } from "#src/standins/sandbox/ids.js";

/** Provider references shaped like the real ones (docs/sandbox.md, Payloads). */
describe("provider references", () => {
  // 2025-10-01 23:22:57 in Lagos (UTC+1), 2 October 01:22:57 in Nairobi (UTC+3).
  const at = Date.parse("2025-10-01T22:22:57Z");

  it("a NIP session id is 30 digits: sender code, Lagos time, 12 random digits", () => {
    const id = nipSessionId(at);
    expect(id).toMatch(/^\d{30}$/);
    expect(id.slice(0, 18)).toBe("999240251001232257");
    expect(nipSessionId(at)).not.toBe(id);
  });

  it("an M-Pesa receipt is 10 uppercase letters and digits, dated on Nairobi's calendar", () => {
    const receipt = mpesaReceipt(at);
    expect(receipt).toMatch(/^[A-Z][A-Z0-9]{9}$/);
    // T = 2025, J = October, 2 = the 2nd (already 2 October in Nairobi).
    expect(receipt.slice(0, 3)).toBe("TJ2");
    expect(mpesaReceipt(Date.parse("2026-12-31T12:00:00Z")).slice(0, 3)).toBe("ULV");
  });
});
