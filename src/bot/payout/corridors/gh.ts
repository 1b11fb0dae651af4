import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { formatPhone, normaliseGhanaMtn } from "#src/bot/payout/phone.js";
import { type Draft, draftOf, promptName, promptValue } from "#src/bot/payout/prompts.js";
import { type Voice, voiced } from "#src/bot/payout/voice.js";
import { escapeHtml } from "#src/i18n/index.js";

/** Ghana: an MTN mobile-money number (other networks are refused up front) and the account name. */
export async function ghanaRecipient(io: FlowIo, voice: Voice): Promise<Draft> {
  const { t } = io;
  const allowTestNumbers = io.deps.config.payout.env !== "production";
  const phone = await promptValue(
    io,
    () => t(voiced(voice, "gh.phone_prompt")),
    (text) => {
      const parsed = normaliseGhanaMtn(text, { allowTestNumbers });
      if (parsed.ok) return { ok: true, value: parsed.e164 };
      const network = parsed.network ? t(`payout:gh.networks.${parsed.network}`) : "";
      return { ok: false, error: t(`payout:gh.phone_error.${parsed.reason}`, { network }) };
    },
  );
  const name = await promptName(io, "GH", () =>
    t(voiced(voice, "gh.name_prompt"), { phone: escapeHtml(formatPhone(phone)) }),
  );
  return draftOf(
    io,
    "GH",
    { identifierType: "MTN", identifiers: { phoneNumber: phone, accountName: name } },
    name,
  );
}
