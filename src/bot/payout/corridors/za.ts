import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { zaBanks } from "#src/bot/payout/banks.js";
import { payoutAction, payoutZaBankData } from "#src/bot/payout/callback-data.js";
import { actionsKeyboard, zaBanksKeyboard, zaMatchesKeyboard } from "#src/bot/payout/keyboards.js";
import {
  askButton,
  type Draft,
  draftOf,
  failureText,
  promptName,
  promptValue,
  withNotice,
} from "#src/bot/payout/prompts.js";
import { parseZaAccountNumber } from "#src/bot/payout/recipient.js";
import { type Voice, voiced } from "#src/bot/payout/voice.js";
import { matchZaBanks } from "#src/bot/rules/banks.js";
import { escapeHtml, quoteInput } from "#src/i18n/index.js";

/** South Africa: a bank from the API's ZA list, the account number and the account holder's name. */
export async function southAfricaRecipient(io: FlowIo, voice: Voice): Promise<Draft> {
  const { t } = io;
  const bankName = await pickZaBank(io, voice);
  const accountPrompt = () => t(voiced(voice, "za.account_prompt"), { bank: escapeHtml(bankName) });
  const accountNumber = await promptValue(io, accountPrompt, (text) => {
    const parsed = parseZaAccountNumber(text);
    return parsed.ok
      ? parsed
      : { ok: false, error: t(`payout:za.account_error.${parsed.reason}`, { digits: parsed.count }) };
  });
  const name = await promptName(io, "ZA", () => t(voiced(voice, "za.name_prompt")));
  return draftOf(io, "ZA", { name, bankName, bankAccountNumber: accountNumber }, name);
}

async function pickZaBank(io: FlowIo, voice: Voice): Promise<string> {
  const { t } = io;
  for (;;) {
    const list = await io.call("za-banks", (deps) => zaBanks(deps));
    if (!list.ok) {
      const { error } = list;
      await io.show(
        () => failureText(io, error),
        () => actionsKeyboard(t, ["retry"]),
      );
      await askButton(io);
      continue;
    }
    const name = await bankFromList(io, voice, list.value);
    if (name) return name;
  }
}

/**
 * The bank, tapped in the list or typed: a fragment of one bank's name picks it, a fragment several share shows
 * just those, and one nobody's name has says so above the whole list. Undefined: "try again" (read the list anew).
 */
async function bankFromList(io: FlowIo, voice: Voice, names: readonly string[]): Promise<string | undefined> {
  const { t } = io;
  const prompt = () => t(voiced(voice, "za.bank_prompt"));
  const keyboard = () => zaBanksKeyboard(t, names);
  await io.show(prompt, keyboard);
  for (;;) {
    const answer = await io.ask({ text: true, hint: () => t("payout:hint.buttons") });
    if (answer.kind === "button") {
      if (answer.data === payoutAction("retry")) return undefined;
      if (answer.data === payoutAction("search")) {
        await io.show(prompt, keyboard);
        continue;
      }
      const index = payoutZaBankData.parse(answer.data)?.index;
      const name = index === undefined ? undefined : names[index];
      if (name) return name;
      continue;
    }
    const matches = matchZaBanks(names, answer.text);
    const only = matches.length === 1 ? names[matches[0] ?? -1] : undefined;
    if (only) return only;
    const query = answer.text;
    if (matches.length > 1) {
      await io.show(
        () => t("payout:za.bank_results", { query: quoteInput(query) }),
        () => zaMatchesKeyboard(t, names, matches),
      );
      continue;
    }
    await io.show(() => withNotice(t("payout:za.no_bank", { query: quoteInput(query) }), prompt()), keyboard);
  }
}
