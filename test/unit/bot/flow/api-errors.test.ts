import { describe, expect, it } from "vitest";
import { PayoutApiError } from "#src/api/index.js";
import { isAlreadyPaid } from "#src/bot/flow/api-errors.js";

const refusal = (kind: "validation" | "server", apiMessage: string) =>
  new PayoutApiError({ kind, endpoint: "POST /simulation/pay-in", detail: `${kind} 400`, apiMessage });

describe("isAlreadyPaid", () => {
  it("recognises the API refusing a second payment of a paid quote, and nothing else", () => {
    expect(isAlreadyPaid(refusal("validation", "Quote already paid"))).toBe(true);
    expect(isAlreadyPaid(refusal("validation", "Invalid quote ID"))).toBe(false);
    expect(isAlreadyPaid(refusal("server", "Quote already paid"))).toBe(false);
    expect(isAlreadyPaid(new Error("Quote already paid"))).toBe(false);
  });
});
