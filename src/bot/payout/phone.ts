import { parsePhoneNumberFromString } from "libphonenumber-js";

/**
 * Mobile-money numbers as people write them ("0712 345 678", "712345678", "+254 712…", "254712…", "00254…")
 * → E.164, plus the network a prefix belongs to. Pure.
 */

type KenyanNetwork = "mpesa" | "airtel" | "telkom" | "unknown";

type PhoneResult<N> =
  | { ok: true; e164: string; national: string; network: N }
  /** invalid: not a number of that country; foreign: a valid number of another country. */
  | { ok: false; reason: "invalid" | "foreign" | "not_mtn"; network?: N };

/** Safaricom (M-Pesa) and Airtel prefixes of the 9-digit national number (Communications Authority plan). */
const SAFARICOM = /^(?:7(?:0\d|1\d|2\d|4[0-35-9]|5[7-9]|6[89]|9\d)|11[0-5])/;
const AIRTEL = /^(?:7(?:3\d|5[0-6]|62|8\d)|10[0-2])/;
const TELKOM = /^77\d/;

function cleanup(text: string): string {
  const trimmed = text
    .normalize("NFKC")
    .trim()
    .replace(/[\s\-().]/g, "");
  return trimmed.startsWith("00") ? `+${trimmed.slice(2)}` : trimmed;
}

function parse(text: string, country: "KE" | "GH") {
  const cleaned = cleanup(text);
  if (!/^\+?\d{6,15}$/.test(cleaned)) return undefined;
  return parsePhoneNumberFromString(cleaned, country);
}

export function kenyanNetworkOf(national: string): KenyanNetwork {
  if (SAFARICOM.test(national)) return "mpesa";
  if (AIRTEL.test(national)) return "airtel";
  if (TELKOM.test(national)) return "telkom";
  return "unknown";
}

export function normaliseKenyanPhone(text: string): PhoneResult<KenyanNetwork> {
  const phone = parse(text, "KE");
  if (!phone) return { ok: false, reason: "invalid" };
  if (phone.countryCallingCode !== "254")
    return { ok: false, reason: phone.isValid() ? "foreign" : "invalid" };
  const national = String(phone.nationalNumber);
  if (!phone.isValid() || !/^[17]\d{8}$/.test(national)) return { ok: false, reason: "invalid" };
  return { ok: true, e164: `+254${national}`, national, network: kenyanNetworkOf(national) };
}

type GhanaNetwork = "mtn" | "telecel" | "airteltigo" | "unknown";

const GH_NETWORKS: ReadonlyArray<readonly [RegExp, GhanaNetwork]> = [
  [/^(?:24|25|53|54|55|59)/, "mtn"],
  [/^(?:20|50)/, "telecel"],
  [/^(?:26|27|56|57)/, "airteltigo"],
];

function ghanaNetworkOf(national: string): GhanaNetwork {
  return GH_NETWORKS.find(([prefix]) => prefix.test(national))?.[1] ?? "unknown";
}

/**
 * An MTN Ghana mobile-money number. Numbers of another Ghanaian network are refused (`not_mtn`). Outside
 * production, `allowTestNumbers` accepts well-formed numbers outside the numbering plan (the staging test number
 * +233999992800 is one).
 */
export function normaliseGhanaMtn(
  text: string,
  options: { allowTestNumbers?: boolean } = {},
): PhoneResult<GhanaNetwork> {
  const phone = parse(text, "GH");
  if (!phone) return { ok: false, reason: "invalid" };
  if (phone.countryCallingCode !== "233")
    return { ok: false, reason: phone.isValid() ? "foreign" : "invalid" };
  const national = String(phone.nationalNumber);
  if (!/^\d{9}$/.test(national)) return { ok: false, reason: "invalid" };
  const network = ghanaNetworkOf(national);
  if (network !== "mtn" && network !== "unknown") return { ok: false, reason: "not_mtn", network };
  if (network === "unknown" && !(options.allowTestNumbers && !phone.isValid())) {
    return { ok: false, reason: "invalid" };
  }
  return { ok: true, e164: `+233${national}`, national, network };
}

/** "+254712345678" → "+254 712 345 678" for display (falls back to the input). */
export function formatPhone(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
}
