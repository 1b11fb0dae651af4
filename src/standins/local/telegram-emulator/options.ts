import type { User } from "grammy/types";
import type { Logger } from "pino";
import type { RateLimitOptions } from "./rate-limits.ts";
import type { BotIdentity, MemberStatus } from "./types.ts";

export interface TelegramEmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** A token to accept; default: a fresh BotFather-shaped one. */
  token?: string;
  bot?: Partial<BotIdentity>;
  logger?: Logger;
  /** Telegram's flood limits (429 with retry_after); off by default. */
  rateLimits?: boolean | Partial<RateLimitOptions>;
  /** How long a callback query may wait for its answer (Telegram: about 15 s). */
  callbackAnswerTimeoutMs?: number;
  /** Default wait of the driver's next…()/waitFor() (10 s: tests run on busy machines). */
  defaultTimeoutMs?: number;
  /** Webhook retry backoff after a failed delivery. */
  webhookRetryBaseMs?: number;
  webhookRetryMaxMs?: number;
  /** How long a webhook delivery may take before it counts as failed and is retried (default 30 s). */
  webhookTimeoutMs?: number;
  /** Request bodies above this get Telegram's 413 (default 50 MB). */
  maxUploadBytes?: number;
  /** Calls kept in the call log (default 10 000; oldest dropped first). */
  callLogLimit?: number;
}

export interface UserSpec extends Partial<Omit<User, "id" | "is_bot">> {
  id: number;
  /** true: the user already pressed Start, so the bot may write first. Default false, like Telegram. */
  started?: boolean;
}

export interface GroupSpec {
  id?: number;
  title: string;
  type?: "group" | "supergroup";
  /** The bot's status in the group (default "member"). */
  botStatus?: MemberStatus;
  privacyMode?: boolean;
}
