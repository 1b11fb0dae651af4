import { validationMessageKey } from "#src/bot/flow/api-errors.js";
import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { ngBankSearch } from "#src/bot/payout/banks.js";
import { payoutAction, payoutBankData } from "#src/bot/payout/callback-data.js";
import { actionsKeyboard, bankResultsKeyboard, popularBanksKeyboard } from "#src/bot/payout/keyboards.js";
import {
  askButton,
  type Draft,
  draftOf,
  failureText,
  promptText,
  withNotice,
} from "#src/bot/payout/prompts.js";
import { classifyEnquiryFailure, parseNgAccountNumber } from "#src/bot/payout/recipient.js";
import { type Voice, voiced } from "#src/bot/payout/voice.js";
import type { BankEntry } from "#src/bot/rules/banks.js";
import { escapeHtml, quoteInput } from "#src/i18n/index.js";

/**
 * Nigeria: bank (typed part of its name, or a popular one) → 10-digit account number → name enquiry → the user
 * confirms the verified name. The beneficiary is exactly what the enquiry returned, with the list's bank name.
 */

interface Verified {
  accountName: string;
  accountNumber: string;
  bankCode: string;
}

type Next = { next: "bank" | "account"; notice?: string };

export async function nigeriaRecipient(io: FlowIo, voice: Voice): Promise<Draft> {
  const { t } = io;
  let bank: BankEntry | undefined;
  let notice: string | undefined;
  for (;;) {
    if (!bank) {
      bank = await pickBank(io, voice, notice);
      notice = undefined;
    }
    const bankName = escapeHtml(bank.bankName.trim());
    const account = await promptText(
      io,
      () => t(voiced(voice, "ng.account_prompt"), { bank: bankName }),
      (text) => {
        const parsed = parseNgAccountNumber(text);
        return parsed.ok
          ? parsed
          : { ok: false, error: t(`payout:ng.account_error.${parsed.reason}`, { digits: parsed.count }) };
      },
      { keyboard: () => actionsKeyboard(t, ["other_bank"]), notice },
    );
    notice = undefined;
    if ("action" in account) {
      bank = undefined;
      continue;
    }
    const verified = await enquire(io, voice, bank, account.value);
    if ("next" in verified) {
      notice = verified.notice;
      if (verified.next === "bank") bank = undefined;
      continue;
    }
    await io.show(
      () =>
        t(voiced(voice, "ng.confirm_name"), {
          name: escapeHtml(verified.accountName),
          bank: bankName,
          account: escapeHtml(verified.accountNumber),
        }),
      () => actionsKeyboard(t, ["name_ok", "change"], voice),
    );
    const { data } = await askButton(io);
    if (data !== payoutAction("name_ok")) continue;
    return draftOf(
      io,
      "NG",
      {
        bankAccountNumber: verified.accountNumber,
        bankAccountName: verified.accountName,
        bankCode: verified.bankCode,
        bankName: bank.bankName,
      },
      verified.accountName,
    );
  }
}

/** Type part of the name ("gtb", "first bank", "kuda") or tap a popular bank. */
async function pickBank(io: FlowIo, voice: Voice, notice?: string): Promise<BankEntry> {
  const { t } = io;
  const prompt = () => t(voiced(voice, "ng.bank_prompt"));
  const popular = () => popularBanksKeyboard(t);
  await io.show(() => withNotice(notice, prompt()), popular);
  for (;;) {
    const answer = await io.ask({ text: true, hint: () => t("payout:hint.bank") });
    if (answer.kind === "button") {
      if (answer.data === payoutAction("search")) {
        await io.show(prompt, popular);
        continue;
      }
      const code = payoutBankData.parse(answer.data)?.code;
      if (!code) continue;
      const found = await io.call(
        "bank-by-code",
        async (deps) => (await ngBankSearch(deps)).byCode(code) ?? null,
      );
      if (found.ok && found.value) return found.value;
      await io.show(
        () => withNotice(found.ok ? t("payout:ng.bank_unknown") : failureText(io, found.error), prompt()),
        popular,
      );
      continue;
    }
    const query = answer.text;
    const results = await io.call("bank-search", async (deps) => (await ngBankSearch(deps)).search(query));
    if (!results.ok) {
      await io.show(() => withNotice(failureText(io, results.error), prompt()), popular);
      continue;
    }
    const banks = results.value;
    const shownQuery = () => quoteInput(query);
    if (banks.length === 0) {
      await io.show(() => withNotice(t("payout:ng.no_bank", { query: shownQuery() }), prompt()), popular);
      continue;
    }
    await io.show(
      () => t("payout:ng.bank_results", { query: shownQuery() }),
      () => bankResultsKeyboard(t, banks),
    );
  }
}

/** Name enquiry with a way on for each failure (spec 7). */
async function enquire(
  io: FlowIo,
  voice: Voice,
  bank: BankEntry,
  accountNumber: string,
): Promise<Verified | Next> {
  const { t } = io;
  const account = escapeHtml(accountNumber);
  const bankName = escapeHtml(bank.bankName.trim());
  const retryKeyboard = () => actionsKeyboard(t, ["retry", "other_account"]);
  for (;;) {
    // Only what the flow uses is kept in the conversation log.
    const result = await io.call("name-enquiry", async (deps): Promise<Verified> => {
      const found = await deps.api.nameEnquiry({ accountNumber, bankCode: bank.nipBankCode });
      return {
        accountName: found.accountName,
        accountNumber: found.accountNumber,
        bankCode: found.bankCode ?? bank.nipBankCode,
      };
    });
    if (result.ok) return result.value;
    const problem = classifyEnquiryFailure(result.error);
    switch (problem.kind) {
      case "invalid_account":
        return {
          next: "account",
          notice: t(voiced(voice, "ng.enquiry.invalid_account"), { account, bank: bankName }),
        };
      case "invalid_bank":
        return { next: "bank", notice: t("payout:ng.enquiry.invalid_bank", { bank: bankName }) };
      case "rejected":
        return { next: "account", notice: t(validationMessageKey(problem.reason)) };
      case "verification_failed":
        await io.show(() => t("payout:ng.enquiry.verification_failed", { bank: bankName }), retryKeyboard);
        break;
      case "rate_limited":
        await io.show(() => t("payout:ng.enquiry.rate_limited", { seconds: problem.seconds }), retryKeyboard);
        break;
      case "unavailable":
        await io.show(() => failureText(io, result.error), retryKeyboard);
        break;
    }
    const { data } = await askButton(io);
    if (data === payoutAction("other_account")) return { next: "account" };
  }
}
