import { isPayoutApiError, type NameEnquiry } from "#src/api/index.js";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { cancelButton } from "#src/bot/flow/main-menu.js";
import { askScreen, clearButtons, waitForText } from "#src/bot/flow/screen.js";
import type { BankEntry } from "#src/bot/rules/banks.js";
import { searchBanks } from "#src/bot/rules/treasury.js";
import { escapeHtml, quoteInput } from "#src/i18n/index.js";
import { maskAccount } from "#src/orders/index.js";
import { defineCallbackData, oneOf } from "#src/telegram/callback-data.js";
import type { BankDestination } from "./destination.ts";

/**
 * Where a naira-funded order's kobo go back to: a Nigerian bank (search by name, alias or NIP code), the account
 * number, then name enquiry — the account holder's name is shown and the user confirms it before anything opens.
 * The beneficiary is kept exactly as the bank list and name enquiry gave it (POST /withdraw compares every character).
 */
const bankData = defineCallbackData("rfb", { action: oneOf("bank", "ok"), value: /\d{0,12}/ });

const cancelOnly = (ctx: FlowContext) => ({ inline_keyboard: [[cancelButton(ctx.t)]] });

/** Ask until the user has a confirmed account; returns it with the context to answer on. */
export async function collectBankDestination(
  conversation: FlowConversation,
  ctx: FlowContext,
  amount: string,
): Promise<{ ctx: FlowContext; destination: BankDestination }> {
  let current = ctx;
  for (;;) {
    const bank = await askBank(conversation, current);
    const found = await askAccount(conversation, bank.ctx, bank.bank);
    const beneficiary = {
      bankAccountNumber: String(found.enquiry.accountNumber),
      bankAccountName: found.enquiry.accountName,
      bankCode: bank.bank.nipBankCode,
      bankName: bank.bank.bankName,
    };
    const view = {
      amount,
      bank: escapeHtml(beneficiary.bankName.trim()),
      account: escapeHtml(maskAccount(beneficiary.bankAccountNumber)),
      name: escapeHtml(beneficiary.bankAccountName.trim()),
    };
    const { messageId, input } = await askScreen(conversation, found.ctx, {
      text: found.ctx.t("refund:bank.confirm", view),
      rows: [[{ label: found.ctx.t("refund:bank.confirm_button"), action: "ok" }]],
      codec: bankData,
      acceptText: false,
      hint: (other) => other.t("refund:bank.confirm_hint"),
    });
    current = input.ctx;
    // The confirmed screen keeps its text as the record of what was confirmed; its button goes.
    await clearButtons(current, messageId);
    if (input.kind === "button" && input.action === "ok") {
      const destination = `${beneficiary.bankName.trim()} ${maskAccount(beneficiary.bankAccountNumber)}`;
      return { ctx: current, destination: { ok: true, destinationKind: "bank", destination, beneficiary } };
    }
  }
}

/** Bank by name, alias or NIP code; several matches → buttons (typing again searches again). */
async function askBank(
  conversation: FlowConversation,
  ctx: FlowContext,
): Promise<{ ctx: FlowContext; bank: BankEntry }> {
  const deps = ctx.deps;
  await ctx.reply(ctx.t("refund:bank.ask_bank"), { parse_mode: "HTML", reply_markup: cancelOnly(ctx) });
  for (;;) {
    const { ctx: current, text } = await waitForText(conversation, (other) =>
      other.reply(other.t("refund:bank.ask_bank"), { parse_mode: "HTML" }),
    );
    const matches = await conversation.external(() =>
      searchBanks(deps, text.slice(0, 100)).catch(() => null),
    );
    const [only] = matches ?? [];
    if (matches?.length === 1 && only) return { ctx: current, bank: only };
    if (!matches || matches.length === 0) {
      const key = matches ? "refund:bank.none" : "errors:api.unreachable";
      await current.reply(current.t(key, { query: quoteInput(text) }), { parse_mode: "HTML" });
      continue;
    }
    const { messageId, input } = await askScreen(conversation, current, {
      text: current.t("refund:bank.pick"),
      rows: matches.map((match) => [
        { label: match.bankName.trim(), action: "bank", value: match.nipBankCode },
      ]),
      codec: bankData,
      acceptText: false,
      hint: (other) => other.t("refund:bank.pick"),
    });
    await clearButtons(input.ctx, messageId);
    const bank = input.kind === "button" ? matches.find((m) => m.nipBankCode === input.value) : undefined;
    if (bank) return { ctx: input.ctx, bank };
  }
}

/** The 10-digit account number, checked by name enquiry; the API's own words when it refuses. */
async function askAccount(
  conversation: FlowConversation,
  ctx: FlowContext,
  bank: BankEntry,
): Promise<{ ctx: FlowContext; enquiry: NameEnquiry }> {
  const deps = ctx.deps;
  const ask = (other: FlowContext) =>
    other.t("refund:bank.ask_account", { bank: escapeHtml(bank.bankName.trim()) });
  await ctx.reply(ask(ctx), { parse_mode: "HTML", reply_markup: cancelOnly(ctx) });
  for (;;) {
    const { ctx: current, text } = await waitForText(conversation, (other) =>
      other.reply(ask(other), { parse_mode: "HTML" }),
    );
    const accountNumber = text.replace(/[\s-]/g, "");
    if (!/^\d{10}$/.test(accountNumber)) {
      await current.reply(current.t("refund:bank.account_invalid"), { parse_mode: "HTML" });
      continue;
    }
    const result = await conversation.external(async () => {
      try {
        const enquiry = await deps.api.nameEnquiry({ accountNumber, bankCode: bank.nipBankCode });
        return { ok: true as const, enquiry };
      } catch (error) {
        // JSON only (the result is replayed from the log).
        return { ok: false as const, reason: isPayoutApiError(error) ? (error.apiMessage ?? null) : null };
      }
    });
    if (result.ok) return { ctx: current, enquiry: result.enquiry };
    const reason = result.reason ? quoteInput(result.reason, 200) : current.t("refund:bank.enquiry_failed");
    await current.reply(current.t("refund:bank.enquiry_retry", { reason }), { parse_mode: "HTML" });
  }
}
