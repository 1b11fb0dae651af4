import type { Country } from "#src/money/index.js";

type PayoutMethod = "ngn_bank" | "kes_phone" | "kes_bill" | "kes_till" | "zar_bank" | "ghs_mtn";

/** Which corridor and method a beneficiary object belongs to (saved recipients carry the API shape as is). */
export function methodOf(
  beneficiary: Record<string, unknown>,
): { corridor: Country; method: PayoutMethod } | undefined {
  if (typeof beneficiary.bankCode === "string") return { corridor: "NG", method: "ngn_bank" };
  if (typeof beneficiary.name === "string" && typeof beneficiary.bankName === "string") {
    return { corridor: "ZA", method: "zar_bank" };
  }
  switch (beneficiary.identifierType) {
    case "paytophone":
      return { corridor: "KE", method: "kes_phone" };
    case "paytobill":
      return { corridor: "KE", method: "kes_bill" };
    case "paytotill":
      return { corridor: "KE", method: "kes_till" };
    case "MTN":
      return { corridor: "GH", method: "ghs_mtn" };
  }
  return undefined;
}
