/**
 * Bench options: `--name=value` or `--name value` on the command line, else the environment variable `env`, else
 * the default. Benches are entry points, so reading argv/env here is allowed (see docs/developers-guide.md).
 */
function fromArgv(name: string): string | undefined {
  const argv = process.argv.slice(2);
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? "";
    if (arg === `--${name}`) {
      const next = argv[index + 1];
      return next !== undefined && !next.startsWith("--") ? next : "true";
    }
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
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
