import { isPayoutApiError, type NameEnquiry } from "#src/api/index.js";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import type { BankEntry } from "#src/bot/rules/banks.js";
import { searchBanks } from "#src/bot/rules/treasury.js";
import { escapeHtml, quoteInput } from "#src/i18n/index.js";
import { formatMoney, parseAmount } from "#src/money/index.js";
import type { ApprovalPayload } from "#src/store/index.js";
import { askButtons, askText } from "./prompt.ts";

/**
 * /withdraw_ngn: amount → bank (name, alias or NIP code) → account number → name enquiry → the beneficiary shown
 * exactly as the bank returned it. Returns the payload to submit for approval, with the context to answer on.
 */
export async function collectNgnWithdrawal(
  conversation: FlowConversation,
  ctx: FlowContext,
  owner: number,
): Promise<{ payload: Extract<ApprovalPayload, { kind: "withdraw_ngn" }>; ctx: FlowContext }> {
  const deps = ctx.deps;
  const balance = await conversation.external(() =>
    deps.api
      .getWallets({ currency: "NGN" })
      .then((wallets) => wallets.find((wallet) => wallet.currency.toUpperCase() === "NGN")?.balance ?? null)
      .catch(() => null),
  );
  const balanceLine =
    balance === null
      ? ""
      : ctx.t("admin:withdraw.balance", { balance: formatMoney(balance, "NGNKOBO", ctx.locale) });

  let current = ctx;
  let amount: number | undefined;
  let ask = `${ctx.t("admin:withdraw.ngn.amount_prompt")}${balanceLine}`;
  while (amount === undefined) {
    const input = await askText(conversation, current, owner, ask, "250,000");
    current = input.ctx;
    const parsed = parseAmount(input.text, { currency: "NGNKOBO", locale: current.locale });
    if (parsed.ok) amount = parsed.minor;
    else ask = current.t("admin:withdraw.ngn.amount_invalid");
  }

  const picked = await askBank(conversation, current, owner);
  current = picked.ctx;
  const chosen: BankEntry = picked.bank;
  let enquiry: NameEnquiry | undefined;
  ask = current.t("admin:withdraw.ngn.account_prompt", { bank: escapeHtml(chosen.bankName.trim()) });
  while (!enquiry) {
    const input = await askText(conversation, current, owner, ask, "0123456789");
    current = input.ctx;
    const accountNumber = input.text.replace(/[\s-]/g, "");
    if (!/^\d{10}$/.test(accountNumber)) {
      ask = current.t("admin:withdraw.ngn.account_invalid");
      continue;
    }
    const bankCode = chosen.nipBankCode;
    const result = await conversation.external(async () => {
      try {
        return { ok: true as const, enquiry: await deps.api.nameEnquiry({ accountNumber, bankCode }) };
      } catch (error) {
        // JSON only (the result is replayed from the log): the API's own words when it gave some.
        return { ok: false as const, reason: isPayoutApiError(error) ? (error.apiMessage ?? null) : null };
      }
    });
    if (result.ok) {
      enquiry = result.enquiry;
      break;
    }
    const why = result.reason
      ? quoteInput(result.reason, 200)
      : current.t("admin:withdraw.ngn.enquiry_failed");
    ask = current.t("admin:withdraw.ngn.enquiry_retry", { reason: why });
  }

  return {
    ctx: current,
    payload: {
      kind: "withdraw_ngn",
      amount,
      // Exactly as enquired and listed: the API compares every character (a trailing no-break space included).
      beneficiary: {
        bankAccountNumber: String(enquiry.accountNumber),
        bankAccountName: enquiry.accountName,
        bankCode: chosen.nipBankCode,
        bankName: chosen.bankName,
      },
    },
  };
}

/** Bank by name, alias or 6-digit NIP code; several matches → buttons (another reply searches again). */
async function askBank(
  conversation: FlowConversation,
  ctx: FlowContext,
  owner: number,
): Promise<{ bank: BankEntry; ctx: FlowContext }> {
  const deps = ctx.deps;
  let current = ctx;
  let ask = current.t("admin:withdraw.ngn.bank_prompt");
  for (;;) {
    const input = await askText(conversation, current, owner, ask, "GTBank / 000013");
    current = input.ctx;
    const query = input.text;
    const matches = await conversation.external(() => searchBanks(deps, query).catch(() => null));
    if (matches === null) {
      ask = `${current.t("errors:api.unreachable")}\n\n${current.t("admin:withdraw.ngn.bank_prompt")}`;
      continue;
    }
    const [only] = matches;
    if (matches.length === 1 && only) return { bank: only, ctx: current };
    if (matches.length === 0) {
      ask = current.t("admin:withdraw.ngn.bank_none", { query: quoteInput(query) });
      continue;
    }
    const { input: pressed } = await askButtons(
      conversation,
      current,
      owner,
      current.t("admin:withdraw.ngn.bank_pick"),
      matches.map((match) => [
        {
          label: `${match.bankName.trim()} · ${match.nipBankCode}`,
          action: "bank",
          value: match.nipBankCode,
        },
      ]),
    );
    current = pressed.ctx;
    const bank =
      pressed.kind === "button" ? matches.find((match) => match.nipBankCode === pressed.value) : undefined;
    if (bank) return { bank, ctx: current };
    ask = current.t("admin:withdraw.ngn.bank_prompt");
  }
}
