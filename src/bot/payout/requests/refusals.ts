import type { TFunction } from "#src/i18n/index.js";
import type { ClaimResult } from "#src/store/index.js";

/** Why a request cannot be paid now (opening its link, or at Confirm when another payer came first). */
export type RequestRefusal = Exclude<ClaimResult, "ok">;

export function refusalText(t: TFunction, refusal: RequestRefusal): string {
  return t(`request:refused.${refusal}`);
}
