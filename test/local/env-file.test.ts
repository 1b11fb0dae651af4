import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnBot, stopAllBots } from "../support/spawn-bot.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = join(ROOT, "src/main.ts");
const SANDBOX = join(ROOT, "src/standins/sandbox/standalone.ts");

// Inside the repo so `--import tsx` still resolves from the child's working directory.
let dir: string;
beforeEach(() => {
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(ROOT, ".tmp/env-file-"));
});
afterEach(async () => {
  await stopAllBots();
  rmSync(dir, { recursive: true, force: true });
});
afterAll(stopAllBots);

/** Runs an entry in `dir` with a minimal environment and returns its exit code and all it printed. */
async function run(entry: string, env: Record<string, string> = {}) {
  const child = spawnBot({
    entry,
    cwd: dir,
    inheritEnv: false,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? dir, ...env },
  });
  const exit = await child.exited;
  return { code: exit.code, output: child.lines.map((line) => line.raw).join("\n") };
}

describe(".env loading", () => {
  it("uses values from .env, and a variable set in the real environment wins over the file", async () => {
    // Both values are invalid on purpose: the configuration error names which one the process read.
    writeFileSync(join(dir, ".env"), "# ops settings\nPORT=not-a-port\nBOT_MODE=carrier-pigeon\n");
    const { code, output } = await run(MAIN, { BOT_MODE: "webhook" });
    expect(code).toBe(1);
    expect(output).toContain("Invalid configuration");
    expect(output).toMatch(/PORT .*number/i);
    expect(output).toContain("PUBLIC_URL is required when BOT_MODE=webhook");
    expect(output).not.toContain("carrier-pigeon");
  });

  it("starts without a .env file (only the real environment counts)", async () => {
    const { code, output } = await run(MAIN, { PORT: "not-a-port" });
    expect(code).toBe(1);
    expect(output).toMatch(/PORT .*number/i);
    expect(output).not.toMatch(/\.env (line|cannot)/);
  });

  it("stops with the line number of a malformed .env, without echoing the line", async () => {
    writeFileSync(join(dir, ".env"), "LOG_LEVEL=info\nsk_live_secret_pasted_alone\n");
    const { code, output } = await run(MAIN);
    expect(code).toBe(1);
    expect(output).toContain(".env line 2 is not NAME=value");
    expect(output).not.toContain("sk_live_secret_pasted_alone");
  });

  it("loads .env in the standalone sandbox too", async () => {
    writeFileSync(join(dir, ".env"), "SANDBOX_PORT=not-a-port\n");
    const { code, output } = await run(SANDBOX);
    expect(code).toBe(2);
    expect(output).toContain('SANDBOX_PORT must be a port number, got "not-a-port"');
  });
});
