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

export interface LoggerOptions {
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
      err: (error: unknown) => {
        const serialized = pino.stdSerializers.err(error as Error);
        if (serialized && typeof serialized.message === "string")
          serialized.message = scrubText(serialized.message);
        if (serialized && typeof serialized.stack === "string")
          serialized.stack = scrubText(serialized.stack);
        return serialized;
      },
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

/** A logger that writes nothing, for tests and tools that do not care. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
