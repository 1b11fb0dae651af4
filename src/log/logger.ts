import { createRequire } from "node:module";
import pino, { type Logger } from "pino";
import { maskDigits, maskSecret, scrubText } from "./mask.ts";

export type { Logger } from "pino";

/** Fields whose whole value is a secret. */
const SECRET_KEYS = [
  "apiKey",
  "api_key",
  "x-api-key",
  "X-API-KEY",
  "secret",
  "webhookSecret",
  "token",
  "botToken",
  "authorization",
  "password",
  "x-mavapay-signature",
  "x-webhook-signature",
  "x-telegram-bot-api-secret-token",
];
/** Fields that are personal data: only the last 4 digits survive. */
const PII_KEYS = [
  "accountNumber",
  "bankAccountNumber",
  "ngnBankAccountNumber",
  "phoneNumber",
  "phone",
  "tillNumber",
  "paybillNumber",
];

const secretSet = new Set(SECRET_KEYS);
const piiSet = new Set(PII_KEYS);
/** How deep fields are looked at: a masked key is found up to five objects below the line's own fields. */
const MASK_DEPTH = 6;

function censor(key: string, value: unknown): unknown {
  if (piiSet.has(key))
    return typeof value === "string" || typeof value === "number" ? maskDigits(String(value)) : "[redacted]";
  return maskSecret(value);
}

/**
 * The value with every secret and personal field masked, at any of the first six levels. Only the objects on the
 * way to a masked field are copied (the caller's objects are never changed), so a line with none costs one walk.
 * pino's own `redact` option, with these keys as wildcard paths four levels deep, redacted every top-level field
 * against every path: 45 µs for a line of three ids, against 2.8 µs through this walk (bench/tools/log-cost.ts).
 */
function masked(value: unknown, depth: number): unknown {
  if (depth >= MASK_DEPTH || value === null || typeof value !== "object" || ArrayBuffer.isView(value))
    return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const next = masked(value[index], depth + 1);
      if (next !== value[index]) {
        copy ??= [...value];
        copy[index] = next;
      }
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const field = record[key];
    const next =
      secretSet.has(key) || piiSet.has(key)
        ? censor(key, field)
        : depth === 0 && key === "err"
          ? field // serializeError keeps only fields that explain the error, with their text scrubbed
          : masked(field, depth + 1);
    if (next !== field) {
      copy ??= { ...record };
      copy[key] = next;
    }
  }
  return copy ?? value;
}

const maskFields = (fields: Record<string, unknown>) => masked(fields, 0) as Record<string, unknown>;

/**
 * pino's bindings formatter sees only the root's own bindings, never a child's: a child's bindings are masked on
 * the way in. Children are made from their parent's prototype, so theirs go through here too.
 */
function maskChildBindings(logger: Logger): Logger {
  const child = logger.child;
  logger.child = function maskedChild(this: Logger, bindings, options) {
    return child.call(this, maskFields(bindings), options);
  } as Logger["child"];
  return logger;
}

interface LoggerOptions {
  level: string;
  pretty: boolean;
  name?: string;
  /** Where to write (tests pass a stream to read what was logged). */
  destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const base: pino.LoggerOptions = {
    level: options.level,
    name: options.name,
    formatters: { log: maskFields },
    serializers: {
      err: serializeError,
    },
  };
  const logger = options.destination
    ? pino(base, options.destination)
    : options.pretty && prettyAvailable()
      ? pino({
          ...base,
          transport: {
            target: "pino-pretty",
            options: { colorize: true, translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname" },
          },
        })
      : pino(base);
  return maskChildBindings(logger);
}

/**
 * pino-pretty is a dev dependency: a production install (`npm ci --omit=dev`) does not have it. Asking for pretty
 * logs there falls back to JSON with one line on stderr instead of a crash in pino's transport worker.
 */
function prettyAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve("pino-pretty");
    return true;
  } catch {
    process.stderr.write("pretty logs need pino-pretty (a dev dependency: run npm install); logging JSON\n");
    return false;
  }
}

/**
 * Errors are logged by what explains them, never by every field they carry: pino's standard serializer copies all
 * own properties, and grammY's BotError holds the whole update context (the message text, session, deps).
 */
const ERROR_FIELDS = [
  "type",
  "message",
  "stack",
  "code",
  "errno",
  "syscall",
  "method",
  "error_code",
  "description",
  "status",
  "statusCode",
  "kind",
  "endpoint",
  "outcomeUnknown",
  "apiMessage",
] as const;

function serializeError(error: unknown, depth = 0): Record<string, unknown> | undefined {
  const serialized = pino.stdSerializers.err(error as Error) as Record<string, unknown> | undefined;
  if (!serialized || typeof serialized !== "object") return serialized;
  const kept: Record<string, unknown> = {};
  for (const field of ERROR_FIELDS) {
    const value = serialized[field];
    if (value === undefined || (typeof value === "object" && value !== null)) continue;
    kept[field] = typeof value === "string" ? scrubText(value) : value;
  }
  // grammY wraps the handler's error in BotError.error; other libraries use cause.
  const inner = (error as { error?: unknown; cause?: unknown }).error ?? (error as { cause?: unknown }).cause;
  if (inner instanceof Error && depth < 3) kept.cause = serializeError(inner, depth + 1);
  return kept;
}

/** A logger that writes nothing, for tests and tools that do not care. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
