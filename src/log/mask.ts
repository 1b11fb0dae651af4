/** Masking helpers for secrets and personal data. Used by the logger's redaction and by user-facing lists. */

/** Keep only the last 4 digits: "0123456789" → "******6789"; "+254712345678" → "+********5678". */
export function maskDigits(value: string, visible = 4): string {
  const digits = value.replace(/\D/g, "");
  if (digits.length <= visible) return "*".repeat(digits.length);
  let toHide = digits.length - visible;
  let masked = "";
  for (const char of value) {
    if (/\d/.test(char) && toHide > 0) {
      masked += "*";
      toHide -= 1;
    } else {
      masked += char;
    }
  }
  return masked;
}

/** Every run of five or more digits (spaces and a leading + allowed) in `text` masked but its last four digits. */
export function maskDigitRuns(text: string): string {
  return text.replace(/\+?\d[\d ]{4,}\d/g, (run) => maskDigits(run));
}

/** A secret is never shown, only whether it was set and its length class. */
export function maskSecret(value: unknown): string {
  if (typeof value !== "string" || value.length === 0) return "[unset]";
  return "[redacted]";
}

const TOKEN_IN_URL = /\/bot\d+:[A-Za-z0-9_-]+/g;
const LONG_DIGIT_RUN = /(?<![\w-])\+?\d[\d ]{7,}\d(?![\w-])/g;
const HEX_SECRET = /\b[a-f0-9]{32,64}\b/gi;

/**
 * Scrub free text (error messages, URLs) that may embed a bot token, phone or account number.
 * Long hex strings are left alone unless asked, because payment hashes are useful in logs.
 */
export function scrubText(text: string, options: { hex?: boolean } = {}): string {
  let out = text
    .replace(TOKEN_IN_URL, "/bot[redacted]")
    .replace(LONG_DIGIT_RUN, (match) => maskDigits(match));
  if (options.hex) out = out.replace(HEX_SECRET, "[redacted]");
  return out;
}
