import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { payoutMethodData, payoutNetworkData } from "#src/bot/payout/callback-data.js";
import { kenyaMethodKeyboard, networkKeyboard } from "#src/bot/payout/keyboards.js";
import { formatPhone, normaliseKenyanPhone } from "#src/bot/payout/phone.js";
import { askButton, type Draft, draftOf, promptName, promptValue } from "#src/bot/payout/prompts.js";
import { parseBillAccount, parsePaybillNumber, parseTillNumber } from "#src/bot/payout/recipient.js";
import { type Voice, voiced } from "#src/bot/payout/voice.js";
import { escapeHtml } from "#src/i18n/index.js";

/** Kenya: M-Pesa/Airtel phone, paybill + account, or till; plus the recipient's name. */
export async function kenyaRecipient(io: FlowIo, voice: Voice): Promise<Draft> {
  const { t } = io;
  await io.show(
    () => t(voiced(voice, "ke.method_prompt")),
    () => kenyaMethodKeyboard(t),
  );
  for (;;) {
    const { data } = await askButton(io);
    const method = payoutMethodData.parse(data)?.method;
    if (method === "phone") return kenyaPhone(io, voice);
    if (method === "bill") return kenyaPaybill(io, voice);
    if (method === "till") return kenyaTill(io, voice);
  }
}

async function kenyaPhone(io: FlowIo, voice: Voice): Promise<Draft> {
  const { t } = io;
  const phone = await promptValue(
    io,
    () => t(voiced(voice, "ke.phone_prompt")),
    (text) => {
      const parsed = normaliseKenyanPhone(text);
      return parsed.ok
        ? { ok: true, value: parsed }
        : { ok: false, error: t(`payout:ke.phone_error.${parsed.reason}`) };
    },
  );
  // The prefix tells the network for most numbers; the user confirms (numbers move between networks).
  const suggested = phone.network === "mpesa" || phone.network === "airtel" ? phone.network : undefined;
  const shown = () => escapeHtml(formatPhone(phone.e164));
  await io.show(
    () =>
      suggested
        ? t(voiced(voice, "ke.network_guess"), {
            phone: shown(),
            network: t(`payout:ke.network.${suggested}`),
          })
        : t("payout:ke.network_ask", { phone: shown() }),
    () => networkKeyboard(t, suggested),
  );
  let network: "mpesa" | "airtel" | undefined;
  while (!network) {
    const { data } = await askButton(io);
    const picked = payoutNetworkData.parse(data)?.network;
    if (picked === "mpesa" || picked === "airtel") network = picked;
  }
  const name = await promptName(io, "KE", () => t(voiced(voice, "ke.name_prompt"), { phone: shown() }));
  return draftOf(
    io,
    "KE",
    { identifierType: "paytophone", identifiers: { phoneNumber: phone.e164, accountName: name, network } },
    name,
  );
}

async function kenyaPaybill(io: FlowIo, voice: Voice): Promise<Draft> {
  const { t } = io;
  const paybill = await promptValue(
    io,
    () => t("payout:ke.paybill_prompt"),
    (text) => {
      const parsed = parsePaybillNumber(text);
      return parsed.ok ? parsed : { ok: false, error: t("payout:ke.paybill_error") };
    },
  );
  const account = await promptValue(
    io,
    () => t("payout:ke.bill_account_prompt", { paybill }),
    (text) => {
      const parsed = parseBillAccount(text);
      return parsed.ok ? parsed : { ok: false, error: t("payout:ke.bill_account_error") };
    },
  );
  const name = await promptName(io, "KE", () => t(voiced(voice, "ke.business_prompt")));
  return draftOf(
    io,
    "KE",
    {
      identifierType: "paytobill",
      identifiers: { paybillNumber: paybill, accountNumber: account, accountName: name },
    },
    name,
  );
}

async function kenyaTill(io: FlowIo, voice: Voice): Promise<Draft> {
  const { t } = io;
  const till = await promptValue(
    io,
    () => t("payout:ke.till_prompt"),
    (text) => {
      const parsed = parseTillNumber(text);
      return parsed.ok ? parsed : { ok: false, error: t("payout:ke.till_error") };
    },
  );
  const name = await promptName(io, "KE", () => t(voiced(voice, "ke.business_prompt")));
  // The spec's till shape has no name field: the name stays in our label only.
  return draftOf(io, "KE", { identifierType: "paytotill", identifiers: { accountNumber: till } }, name);
}
