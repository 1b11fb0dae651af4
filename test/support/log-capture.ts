import { createLogger, type Logger } from "#src/log/logger.js";

export interface CapturedLog {
  logger: Logger;
  /** Every line logged at warn or above, parsed. */
  entries: Array<{ level: number; msg: string; [key: string]: unknown }>;
  errors(): Array<{ level: number; msg: string; [key: string]: unknown }>;
  warnings(msg: string): number;
}

/** A logger whose warn-and-above lines the test can read (the app logs JSON lines through pino). */
export function captureLog(): CapturedLog {
  const entries: CapturedLog["entries"] = [];
  const logger = createLogger({
    level: "warn",
    pretty: false,
    destination: { write: (line: string) => entries.push(JSON.parse(line)) },
  });
  return {
    logger,
    entries,
    errors: () => entries.filter((entry) => entry.level >= 50),
    warnings: (msg) => entries.filter((entry) => entry.level === 40 && entry.msg === msg).length,
  };
}
