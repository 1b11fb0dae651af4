import { parseArgs } from "node:util";

/**
 * Bench options: `--name=value` or `--name value` on the command line, else the environment variable `env`, else
 * the default. Benches are entry points, so reading argv/env here is allowed (see docs/developers-guide.md).
 */
function fromArgv(name: string): string | undefined {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { [name]: { type: "string" } },
    strict: false,
    allowPositionals: true,
  });
  const value = values[name];
  if (value === undefined) return undefined;
  // A bare flag (`--gc`, or `--gc --runs 5`, where parseArgs takes the next flag as its value) means "true".
  return typeof value !== "string" || value.startsWith("--") ? "true" : value;
}

function raw(name: string, env: string): string | undefined {
  const value = fromArgv(name) ?? process.env[env];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

export function intOption(name: string, env: string, fallback: number): number {
  const value = raw(name, env);
  if (value === undefined) return fallback;
  const parsed = Number(value.replace(/_/g, ""));
  if (!Number.isSafeInteger(parsed) || parsed < 0) {
    throw new Error(`--${name} (${env}) must be a whole number ≥ 0, got "${value}"`);
  }
  return parsed;
}

export function stringOption(name: string, env: string, fallback: string): string {
  return raw(name, env) ?? fallback;
}

export function boolOption(name: string, env: string, fallback: boolean): boolean {
  const value = raw(name, env);
  if (value === undefined) return fallback;
  return ["1", "true", "yes", "on"].includes(value.toLowerCase());
}
