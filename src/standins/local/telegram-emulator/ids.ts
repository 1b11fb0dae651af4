import { randomBytes, randomInt } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

/** A token shaped like BotFather's: `<bot id>:AA<33 url-safe chars>`. */
export function generateBotToken(botId: number): string {
  return `${botId}:AA${randomToken(33)}`;
}

export function botIdFromToken(token: string): number | undefined {
  const match = /^(\d+):/.exec(token);
  return match ? Number(match[1]) : undefined;
}

export function randomBotId(): number {
  return randomInt(6_000_000_000, 7_999_999_999);
}

/** Telegram callback query ids are decimal strings of a 64-bit number. */
export function callbackQueryId(): string {
  return `${randomInt(1_000_000, 9_999_999)}${randomInt(100_000_000, 999_999_999)}`;
}

export function inlineQueryId(): string {
  return `${randomInt(100_000_000, 999_999_999)}${randomInt(100_000_000, 999_999_999)}`;
}

export function chatInstance(): string {
  return `${randomInt(1, 9)}${randomInt(100_000_000, 999_999_999)}${randomInt(100_000_000, 999_999_999)}`;
}

/** file_id prefixes mimic Telegram's so logs look familiar: photos start "AgAC", documents "BQAC". */
export function fileId(kind: "photo" | "document"): string {
  return `${kind === "photo" ? "AgAC" : "BQAC"}AgIAAxkDAAI${randomToken(40)}`;
}

export function fileUniqueId(): string {
  return `AQAD${randomToken(12)}`;
}
