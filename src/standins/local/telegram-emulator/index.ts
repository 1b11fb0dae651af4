/**
 * A local stand-in for api.telegram.org (emulator.ts) and the drivers of the people who talk to the bot: the public
 * API of the Telegram emulator, used by local mode, tests and benches.
 */

export type { ButtonSelector, PressedButton, SendOptions, SentInlineQuery } from "./actor-driver.ts";
export type { ChatDriver, NextOptions, WaitOptions } from "./chat-driver.ts";
export { contentOf, describeEvent, type MessageMatch } from "./chat-events.ts";
export { startTelegramEmulator, TelegramEmulator, type TelegramEmulatorOptions } from "./emulator.ts";
export { TelegramApiError } from "./errors.ts";
export type { Fault, FaultSpec } from "./faults.ts";
export { GroupDriver } from "./group-driver.ts";
export { parseHtml } from "./html.ts";
export type { InlineAnswer } from "./inline.ts";
export { type RateLimitOptions, TELEGRAM_RATE_LIMITS } from "./rate-limits.ts";
export type * from "./types.ts";
export { UserDriver } from "./user-driver.ts";
