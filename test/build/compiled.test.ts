import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The production build (`npm run build` = scripts/build.mjs: tsc -p tsconfig.build.json + runtime files) into a
 * temporary dist/, laid out as in the Docker image (dist/ beside locales/), then run with plain `node` — no tsx —
 * to prove the compiled output loads and runs: import specifiers rewritten to .js, banks.json copied, locales found.
 * The directory sits inside the repo so the compiled code resolves the repo's node_modules.
 */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
}

function run(args: string[], options: { cwd: string; env: Record<string, string | undefined> }): Run {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: Object.fromEntries(Object.entries(options.env).filter(([, value]) => value !== undefined)),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const watchers = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const watcher of watchers) watcher();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  return {
    child,
    output: () => output,
    exited,
    waitFor(pattern, timeoutMs) {
      return new Promise((done, fail) => {
        const check = () => {
          if (!pattern.test(output)) return;
          cleanup();
          done();
        };
        const timer = setTimeout(() => {
          cleanup();
          fail(new Error(`no ${pattern} within ${timeoutMs} ms; output so far:\n${output}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          watchers.delete(check);
        };
        watchers.add(check);
        void exited.then(() => {
          if (!watchers.has(check)) return;
          cleanup();
          fail(new Error(`exited before ${pattern}; output:\n${output}`));
        });
        check();
      });
    },
  };
}

describe("production build (tsc → dist, run with plain node)", () => {
  let workDir = "";
  let mainJs = "";
  const bareEnv = { PATH: process.env.PATH, HOME: process.env.HOME };

  beforeAll(async () => {
    mkdirSync(join(REPO_ROOT, ".tmp"), { recursive: true });
    workDir = mkdtempSync(join(REPO_ROOT, ".tmp", "build-test-"));
    // --no-check: type errors are `npm run typecheck`'s business (and `npm run build` checks too); the emitted
    // JavaScript is the same either way, and this test is about whether it runs.
    const build = run(["scripts/build.mjs", "--out-dir", join(workDir, "dist"), "--no-check"], {
      cwd: REPO_ROOT,
      env: bareEnv,
    });
    const code = await build.exited;
    expect(code, build.output()).toBe(0);
    symlinkSync(join(REPO_ROOT, "locales"), join(workDir, "locales"), "dir");
    mainJs = join(workDir, "dist", "main.js");
  }, 240_000);

  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("exits 1 listing every configuration problem", async () => {
    const bad = run([mainJs], {
      cwd: workDir,
      env: { ...bareEnv, BOT_MODE: "webhook", PORT: "not-a-port", PAYOUT_ENV: "production" },
    });
    expect(await bad.exited).toBe(1);
    const output = bad.output();
    expect(output).toContain("Invalid configuration:");
    expect(output).toContain("PUBLIC_URL is required when BOT_MODE=webhook");
    expect(output).toContain("BOT_TOKEN is required when BOT_MODE=webhook");
    expect(output).toMatch(/- PORT /);
    expect(output).toContain("PAYOUT_API_BASE_URL is required when PAYOUT_ENV=production");
  });

  it("runs the whole app: local mode boots (sandbox, emulator, redis), answers /start and quits cleanly", async () => {
    const bot = run([mainJs], { cwd: workDir, env: bareEnv });
    try {
      await bot.waitFor(/this terminal is your Telegram chat/, 60_000);
      bot.child.stdin?.write("/start\n");
      // Translated text proves dist/i18n found ../../locales; the sandbox loaded dist/standins/sandbox/data/banks.json.
      await bot.waitFor(/Hi You/, 20_000);
      await bot.waitFor(/Send money/, 20_000);
      bot.child.stdin?.write(":quit\n");
      expect(await bot.exited).toBe(0);
    } finally {
      if (bot.child.exitCode === null) bot.child.kill("SIGKILL");
    }
  }, 120_000);
});
