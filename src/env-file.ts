import { existsSync, readFileSync } from "node:fs";

/**
 * `.env` support for the entry points (main.ts, the standalone sandbox): variables from the file are added to
 * process.env before the configuration is read, and a variable already set in the real environment wins
 * (process.loadEnvFile never overrides). No file is fine. Node's parser skips lines it does not understand, so a
 * typo would silently fall back to a default: the file is checked first and a bad line stops the start.
 */
export class EnvFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvFileError";
  }
}

const ASSIGNMENT = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=(.*)$/;

/** Loads `path` when it exists; returns whether it did. Throws EnvFileError naming the first bad line. */
export function loadEnvFile(path = ".env"): boolean {
  if (!existsSync(path)) return false;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new EnvFileError(`${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const problem = firstBadLine(text);
  if (problem !== undefined) {
    // The line itself is not echoed: it may hold a secret.
    throw new EnvFileError(
      `${path} line ${problem} is not NAME=value (a comment starts with #; a value spanning lines must be quoted)`,
    );
  }
  process.loadEnvFile(path);
  return true;
}

/** 1-based number of the first line that is neither blank, a comment, nor an assignment; undefined when all are. */
function firstBadLine(text: string): number | undefined {
  const lines = text.split(/\r?\n/);
  let openQuote: string | undefined;
  for (const [index, line] of lines.entries()) {
    if (openQuote !== undefined) {
      if (line.includes(openQuote)) openQuote = undefined;
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const match = ASSIGNMENT.exec(trimmed);
    if (!match) return index + 1;
    const value = (match[1] ?? "").trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'" || quote === "`") && !value.slice(1).includes(quote))
      openQuote = quote;
  }
  return openQuote === undefined ? undefined : lines.length;
}
