import { z } from "zod";
import { crossFieldProblems } from "./config/cross-field.ts";
import {
  booleanFlag,
  emptyToUndefined,
  httpUrl,
  integerList,
  optionalString,
  optionalUrl,
} from "./config/env-values.ts";
import { parseRedisUrl } from "./store/connection.ts";

/**
 * The whole runtime configuration, parsed once from the environment in main.ts.
 * Every other module receives the typed Config (or a slice of it) — never process.env.
 */

/**
 * Who users contact about their money: a Telegram @username, a t.me link, an email address or an http(s) URL. It is
 * shown as plain text (Telegram links each form by itself), so characters that would need HTML escaping are refused.
 */
const supportContact = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .trim()
    .max(200, "must be at most 200 characters")
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      const contact = parseSupportContact(value);
      if (!contact) {
        ctx.addIssue({
          code: "custom",
          message: "must be a Telegram @username, a https://t.me/… link, an email address or an https:// URL",
        });
        return z.NEVER;
      }
      return contact;
    }),
);

interface SupportContact {
  /** As shown in messages. */
  label: string;
  /** For a URL button (http(s) only: Telegram refuses other schemes); absent for an email address. */
  url?: string;
}

export function parseSupportContact(value: string): SupportContact | undefined {
  if (/[<>&"'\s]/.test(value)) return undefined;
  const username = /^@([A-Za-z][A-Za-z0-9_]{3,31})$/.exec(value);
  if (username) return { label: value, url: `https://t.me/${username[1]}` };
  if (/^[^@/:]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/.test(value)) return { label: value };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (!url.hostname.includes(".")) return undefined;
  return { label: value, url: url.toString() };
}

const configSchema = z
  .object({
    NODE_ENV: z.preprocess(
      emptyToUndefined,
      z.enum(["development", "production", "test"]).default("development"),
    ),
    BOT_TOKEN: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(
          /^\d+:[A-Za-z0-9_-]{20,}$/,
          "does not look like a bot token from @BotFather (<digits>:<secret>)",
        )
        .optional(),
    ),
    TELEGRAM_API_ROOT: z.preprocess(emptyToUndefined, httpUrl.default("https://api.telegram.org")),
    BOT_MODE: z.preprocess(emptyToUndefined, z.enum(["polling", "webhook"]).default("polling")),
    PUBLIC_URL: optionalUrl,
    TELEGRAM_WEBHOOK_SECRET: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,256}$/, "may only contain A-Z, a-z, 0-9, _ and - (Telegram's rule)")
        .optional(),
    ),
    /** Test/diagnostic switch: "off" drops the per-chat lease across processes (never in production). */
    UPDATE_LEASE: z.preprocess(emptyToUndefined, z.enum(["on", "off"]).default("on")),
    HOST: z.preprocess(emptyToUndefined, z.string().default("0.0.0.0")),
    PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(8080)),
    /** The metrics listener (GET /metrics for Prometheus): its own port, "off" for none, loopback by default. */
    METRICS_PORT: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^(off|\d{1,5})$/, 'must be a port number (0-65535) or "off"')
        .default("9464")
        .transform((value) => (value === "off" ? undefined : Number(value)))
        .refine((port) => port === undefined || port <= 65535, 'must be a port number (0-65535) or "off"'),
    ),
    METRICS_HOST: z.preprocess(emptyToUndefined, z.string().trim().default("127.0.0.1")),
    /** With it, the public port serves /metrics too, to `Authorization: Bearer <METRICS_TOKEN>` only. */
    METRICS_TOKEN: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^[\x21-\x7e]{16,}$/, "must be at least 16 visible ASCII characters, no spaces")
        .optional(),
    ),
    PAYOUT_API_BASE_URL: optionalUrl,
    PAYOUT_API_KEY: optionalString,
    PAYOUT_ENV: z.preprocess(
      emptyToUndefined,
      z.enum(["sandbox", "staging", "production"]).default("sandbox"),
    ),
    PAYOUT_WEBHOOK_SECRET: optionalString,
    PAYOUT_WEBHOOK_SECRET_PREVIOUS: optionalString,
    WEBHOOK_ALLOW_UNSIGNED: booleanFlag(false),
    BITCOIN_NETWORK: z.preprocess(emptyToUndefined, z.enum(["mainnet", "testnet", "signet"]).optional()),
    PAYMENT_LINK_LIGHTNING: z.preprocess(
      emptyToUndefined,
      z
        .enum(["true", "false", "1", "0", "yes", "no"], { message: "must be true or false" })
        .optional()
        .transform((value) => (value === undefined ? undefined : ["true", "1", "yes"].includes(value))),
    ),
    REDIS_URL: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .superRefine((value, ctx) => {
          try {
            parseRedisUrl(value);
          } catch (error) {
            ctx.addIssue({ code: "custom", message: (error as Error).message });
          }
        })
        .optional(),
    ),
    /** The longest wait between two tries to reach a lost Redis, and how often the outage is logged. */
    REDIS_RETRY_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(100).max(60_000).optional()),
    ADMIN_CHAT_ID: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^-?\d+$/, "must be a Telegram chat id (a group id is negative, e.g. -1001234567890)")
        .transform(Number)
        .optional(),
    ),
    ADMIN_USER_IDS: integerList,
    LOW_BALANCE_ALERTS: optionalString,
    LOG_LEVEL: z.preprocess(
      emptyToUndefined,
      z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    ),
    LOG_FORMAT: z.preprocess(emptyToUndefined, z.enum(["json", "pretty"]).optional()),
    PROCESS_ROLE: z.preprocess(emptyToUndefined, z.enum(["all", "web", "worker"]).default("all")),
    USER_RATE_LIMIT: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .trim()
        .regex(/^(off|\d+\/\d+s?)$/i, 'must be "<updates>/<seconds>" (e.g. 20/10) or "off"')
        .default("20/10")
        .transform((value) => {
          const match = /^(\d+)\/(\d+)/.exec(value);
          if (!match) return undefined;
          return { updates: Number(match[1]), windowMs: Number(match[2]) * 1000 };
        })
        .refine((limit) => !limit || (limit.updates > 0 && limit.windowMs > 0), "must be positive"),
    ),
    QUOTE_BUDGET_OPEN: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1000).default(5)),
    QUOTE_BUDGET_RATE: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .trim()
        .regex(/^\d+\/\d+$/, 'must be "<quotes>/<seconds>" (e.g. 20/600)')
        .default("20/600")
        .transform((value) => {
          const [quotes, seconds] = value.split("/").map(Number) as [number, number];
          return { maxInWindow: quotes, windowMs: seconds * 1000 };
        })
        .refine((rate) => rate.maxInWindow > 0 && rate.windowMs > 0, "must be positive"),
    ),
    TELEGRAM_THROTTLE: booleanFlag(true),
    SUPPORT_CONTACT: supportContact,
    REFUND_APPROVAL_THRESHOLD_SATS: z.preprocess(
      emptyToUndefined,
      z.coerce.number().int().min(0).max(2_100_000_000_000_000).default(100_000),
    ),
    NGN_REFUND_APPROVAL_THRESHOLD_KOBO: z.preprocess(
      emptyToUndefined,
      z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(5_000_000),
    ),
    MONEY_REQUEST_TTL_HOURS: z.preprocess(
      emptyToUndefined,
      z.coerce
        .number()
        .int()
        .min(1)
        .max(30 * 24)
        .default(7 * 24),
    ),
  })
  .transform((env) => {
    const local = !env.BOT_TOKEN;
    const sandboxEmbedded = !env.PAYOUT_API_BASE_URL;
    return {
      nodeEnv: env.NODE_ENV,
      /** No BOT_TOKEN: run the Telegram emulator and a terminal chat on this machine. */
      localMode: local,
      telegram: {
        token: env.BOT_TOKEN,
        apiRoot: env.TELEGRAM_API_ROOT,
        mode: env.BOT_MODE,
        webhookSecret: env.TELEGRAM_WEBHOOK_SECRET,
        /** false only as a diagnostic: chats' updates are then ordered within one process only. */
        updateLease: env.UPDATE_LEASE === "on",
        /** Outbound pacing to Telegram's flood limits; off only in front of an API without them (benches). */
        throttle: env.TELEGRAM_THROTTLE,
      },
      http: {
        host: env.HOST,
        port: env.PORT,
        publicUrl: env.PUBLIC_URL,
        metrics: { host: env.METRICS_HOST, port: env.METRICS_PORT, token: env.METRICS_TOKEN },
      },
      payout: {
        /** Unset: start the embedded sandbox in-process and talk to it over HTTP. */
        baseUrl: env.PAYOUT_API_BASE_URL,
        apiKey: env.PAYOUT_API_KEY,
        env: env.PAYOUT_ENV,
        webhookSecret: env.PAYOUT_WEBHOOK_SECRET,
        previousWebhookSecret: env.PAYOUT_WEBHOOK_SECRET_PREVIOUS,
        allowUnsignedWebhooks: env.WEBHOOK_ALLOW_UNSIGNED,
        embeddedSandbox: sandboxEmbedded,
      },
      bitcoinNetwork: env.BITCOIN_NETWORK ?? (env.PAYOUT_ENV === "production" ? "mainnet" : "signet"),
      /**
       * Whether the account's payment links may take LIGHTNING as well as BANKTRANSFER. The spec lists bank
       * transfer only; the real service accepts Lightning on some accounts, so it is on where the operator says so,
       * and by default only against the sandbox (which always accepts it).
       */
      paymentLinkLightning: env.PAYMENT_LINK_LIGHTNING ?? env.PAYOUT_ENV === "sandbox",
      redisUrl: env.REDIS_URL,
      redisRetryMs: env.REDIS_RETRY_MS,
      admin: { chatId: env.ADMIN_CHAT_ID, userIds: env.ADMIN_USER_IDS },
      lowBalanceAlerts: env.LOW_BALANCE_ALERTS,
      /**
       * all: everything in one process. web: HTTP (webhook acks, Telegram updates, health) and the bot, no queue
       * workers. worker: queue workers and the reconciler (HTTP for health and metrics only), no updates.
       */
      processRole: env.PROCESS_ROLE,
      support: { contact: env.SUPPORT_CONTACT },
      refunds: {
        /** A refund above this many sats waits for an admin's approval in the ops group; at or below it pays at once. */
        approvalThresholdSats: env.REFUND_APPROVAL_THRESHOLD_SATS,
        /** The same for a naira-funded order's refund to a bank account, in kobo (default ₦50,000). */
        approvalThresholdKobo: env.NGN_REFUND_APPROVAL_THRESHOLD_KOBO,
      },
      /** How long a money request stays payable (MONEY_REQUEST_TTL_HOURS, default 7 days), on the API's clock. */
      moneyRequests: { ttlMs: env.MONEY_REQUEST_TTL_HOURS * 3600 * 1000 },
      /**
       * Each user's quote budget, taken before the payout API is asked for a quote (store/quote-budget.ts). Defaults:
       * 5 unpaid quotes open at once (QUOTE_BUDGET_OPEN) and 20 quotes per rolling 10 minutes (QUOTE_BUDGET_RATE).
       * A person pays one quote at a time, and a payout with a Refresh or two costs at most 3 quotes, so 20 is half a
       * dozen payouts back to back; a script pressing Refresh gets 20 and is told when the next one is possible.
       */
      quoteBudget: { maxOpen: env.QUOTE_BUDGET_OPEN, ...env.QUOTE_BUDGET_RATE },
      /** Per-user incoming updates per window (USER_RATE_LIMIT); undefined = off. */
      incomingLimit: env.USER_RATE_LIMIT,
      log: {
        level: env.LOG_LEVEL,
        pretty: env.LOG_FORMAT ? env.LOG_FORMAT === "pretty" : env.NODE_ENV !== "production",
      },
    } as const;
  });

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Parse the environment; on failure throw a ConfigError listing every problem (values are never echoed). */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => {
        const name = issue.path.length > 0 ? issue.path.join(".") : "environment";
        return `${name} ${issue.message}`;
      });
  problems.push(...crossFieldProblems(env));
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return result.data;
}
