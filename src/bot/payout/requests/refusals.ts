import type { TFunction } from "../../../i18n/index.ts";
import type { ClaimResult } from "../../../store/index.ts";

/** Why a request cannot be paid now (opening its link, or at Confirm when another payer came first). */
export type RequestRefusal = Exclude<ClaimResult, "ok">;

export function refusalText(t: TFunction, refusal: RequestRefusal): string {
  return t(`request:refused.${refusal}`);
}
