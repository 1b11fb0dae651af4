import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { payoutAction, payoutZaBankData } from "#src/bot/payout/callback-data.js";
import { actionsKeyboard, zaBanksKeyboard } from "#src/bot/payout/keyboards.js";
import {
  askButton,
  type Draft,
  draftOf,
  failureText,
  promptName,
  promptValue,
  withNotice,
} from "#src/bot/payout/prompts.js";
import { zaBanks } from "#src/bot/payout/quote-orders.js";
import { parseZaAccountNumber } from "#src/bot/payout/recipient.js";
import { matchZaBank } from "#src/bot/rules/banks.js";
import { escapeHtml, quoteInput } from "#src/i18n/index.js";

/** South Africa: a bank from the API's ZA list, the account number and the account holder's name. */
export async function southAfricaRecipient(io: FlowIo): Promise<Draft> {
  const { t } = io;
  const bankName = await pickZaBank(io);
  const accountPrompt = () => t("payout:za.account_prompt", { bank: escapeHtml(bankName) });
  const accountNumber = await promptValue(io, accountPrompt, (text) => {
    const parsed = parseZaAccountNumber(text);
    return parsed.ok
      ? parsed
      : { ok: false, error: t(`payout:za.account_error.${parsed.reason}`, { digits: parsed.count }) };
  });
  const name = await promptName(io, () => t("payout:za.name_prompt"));
  return draftOf(io, "ZA", { name, bankName, bankAccountNumber: accountNumber }, name);
}

async function pickZaBank(io: FlowIo): Promise<string> {
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
    const names = list.value;
    const prompt = () => t("payout:za.bank_prompt");
    const keyboard = () => zaBanksKeyboard(t, names);
    await io.show(prompt, keyboard);
    for (;;) {
      const answer = await io.ask({ text: true, hint: () => t("payout:hint.buttons") });
      if (answer.kind === "button") {
        if (answer.data === payoutAction("retry")) break;
        const index = payoutZaBankData.parse(answer.data)?.index;
        const name = index === undefined ? undefined : names[index];
        if (name) return name;
        continue;
      }
      // Typing part of the name works too when it points at one bank.
      const index = matchZaBank(names, answer.text);
      const name = index === undefined ? undefined : names[index];
      if (name) return name;
      const query = answer.text;
      await io.show(
        () => withNotice(t("payout:za.no_bank", { query: quoteInput(query) }), prompt()),
        keyboard,
      );
    }
  }
}
