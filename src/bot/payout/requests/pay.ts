import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { type AmountChoice, type Draft, failureText } from "#src/bot/payout/prompts.js";
import type { PayoutBeneficiary } from "#src/bot/payout/recipient.js";
import { isCurrencyCode } from "#src/money/index.js";
import type { MoneyRequest } from "#src/store/index.js";
import { requestFacts } from "./card.ts";
import { type RequestRefusal, refusalText } from "./refusals.ts";

/**
 * The payer's side of a request link (start req_<token>), inside the payout flow: who receives what (the name and
 * the masked account the requester entered), then straight to a fresh quote for that beneficiary and amount. A
 * request that cannot be paid (paid, being paid, cancelled, expired, unknown) gets its sentence and the flow ends.
 */
export async function openRequest(
  io: FlowIo,
  token: string,
): Promise<{ draft: Draft; amount: AmountChoice; key: string } | undefined> {
  const { t } = io;
  const opened = io.ctx.message?.message_id ?? io.ctx.callbackQuery?.id ?? "";
  const found = await io.call(
    "request-open",
    async (deps): Promise<{ refusal: RequestRefusal } | { request: MoneyRequest }> => {
      const read = await deps.store.requests.read(token, deps.now());
      if (!read) return { refusal: "gone" };
      const { status } = read;
      return status.state === "open" ? { request: read.request } : { refusal: status.state };
    },
  );
  if (!found.ok) {
    await io.reply(failureText(io, found.error));
    return undefined;
  }
  if ("refusal" in found.value) {
    const { refusal } = found.value;
    await io.reply(() => refusalText(t, refusal), { parse_mode: "HTML" });
    return undefined;
  }
  const { request } = found.value;
  const currency = request.amount.currency;
  if (!isCurrencyCode(currency)) {
    await io.reply(() => refusalText(t, "gone"), { parse_mode: "HTML" });
    return undefined;
  }
  await io.reply(() => t("request:pay.intro", requestFacts(request, io.locale)), { parse_mode: "HTML" });
  const draft: Draft = {
    country: request.corridor,
    beneficiary: request.beneficiary as unknown as PayoutBeneficiary,
    label: request.label,
    name: request.name,
    requestId: request.token,
  };
  return {
    draft,
    amount: { minor: request.amount.amount, currency },
    key: `request-quote:${token}:${io.chatId}:${opened}`,
  };
}
