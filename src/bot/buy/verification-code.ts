import { randomInt } from "node:crypto";

/**
 * A short anti-impersonation code shown on the quote card and on the status message: two emoji from a set that
 * reads the same on every phone. It only has to be hard to guess for someone forwarding a fake quote.
 */
const EMOJI = [
  "🦊",
  "🍋",
  "🐢",
  "🌵",
  "🎈",
  "🍉",
  "🐙",
  "🌻",
  "🚲",
  "🎸",
  "🦁",
  "🍍",
  "🐝",
  "🌈",
  "⚓",
  "🍒",
  "🦉",
  "🥥",
  "🐳",
  "🍄",
  "🎲",
  "🦋",
  "🌙",
  "🍩",
  "🐘",
  "🌽",
  "🧭",
  "🪁",
  "🐧",
  "🍇",
  "🚀",
  "🎯",
] as const;

export function newVerificationCode(): string {
  return `${EMOJI[randomInt(EMOJI.length)]}${EMOJI[randomInt(EMOJI.length)]}`;
}
