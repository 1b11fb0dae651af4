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

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const key of [...SECRET_KEYS, ...PII_KEYS]) {
    const accessor = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
    const join = (prefix: string) =>
      accessor.startsWith("[") ? `${prefix}${accessor}` : `${prefix}.${accessor}`;
    paths.push(accessor.startsWith("[") ? `${accessor}` : accessor);
    paths.push(join("*"));
    paths.push(join("*.*"));
    paths.push(join("*.*.*"));
  }
  return paths;
}

const piiSet = new Set(PII_KEYS);

interface LoggerOptions {
  level: string;
  pretty: boolean;
  name?: string;
  /** Where to write (tests pass a stream to read what was logged). */
  destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const redact = {
    paths: redactPaths(),
    censor: (value: unknown, path: string[]) => {
      const key = path[path.length - 1] ?? "";
      if (piiSet.has(key))
        return typeof value === "string" || typeof value === "number"
          ? maskDigits(String(value))
          : "[redacted]";
      return maskSecret(value);
    },
  };
  const base: pino.LoggerOptions = {
    level: options.level,
    name: options.name,
    redact,
    serializers: {
      err: serializeError,
    },
  };
  if (options.destination) return pino(base, options.destination);
  if (options.pretty && prettyAvailable()) {
    return pino({
      ...base,
      transport: {
        target: "pino-pretty",
        options: { colorize: true, translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname" },
      },
    });
  }
  return pino(base);
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
