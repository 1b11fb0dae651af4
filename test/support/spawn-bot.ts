import { type ChildProcess, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** One pino line from the child, parsed; `raw` is the original text. */
export interface LogLine {
  level?: number;
  msg?: string;
  time?: number;
  [field: string]: unknown;
  raw: string;
  stream: "stdout" | "stderr";
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** true when kill() had to escalate to SIGKILL. */
  forced: boolean;
}

export interface SpawnBotOptions {
  /** Entry file relative to the repo root (default "src/main.ts"). */
  entry?: string;
  args?: string[];
  /** Added to (or, with inheritEnv false, instead of) the parent's environment. */
  env?: Record<string, string | undefined>;
  inheritEnv?: boolean;
  cwd?: string;
  /** Echo the child's output to this process's stderr (debugging). */
  echo?: boolean;
  /** "pipe" to type into the child (local mode's terminal chat); default: no stdin. */
  stdin?: "pipe" | "ignore";
}

export type LogMatcher = string | RegExp | ((line: LogLine) => boolean);

export interface SpawnedBot {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every output line so far, both streams, in arrival order. */
  readonly lines: readonly LogLine[];
  /** Only lines that parsed as JSON (pino). */
  logs(): LogLine[];
  /** Resolves with the first line (past or future) matching; `string` matches msg exactly or any raw substring. */
  waitForLog(matcher: LogMatcher, options?: { timeoutMs?: number }): Promise<LogLine>;
  /** Sends the signal and waits for the exit; escalates to SIGKILL after `timeoutMs` (default 15 s). */
  kill(signal?: NodeJS.Signals, options?: { timeoutMs?: number }): Promise<ExitInfo>;
  readonly exited: Promise<ExitInfo>;
  readonly exitInfo: ExitInfo | undefined;
}

const running = new Set<SpawnedBot>();

function toMatcher(matcher: LogMatcher): (line: LogLine) => boolean {
  if (typeof matcher === "function") return matcher;
  if (typeof matcher === "string") return (line) => line.msg === matcher || line.raw.includes(matcher);
  return (line) => matcher.test(line.raw);
}

/**
 * Spawn the bot (or another entry) as `node --import tsx <entry>`: the node process itself, so signals
 * reach the bot and nothing is orphaned (the `tsx` wrapper would be).
 */
export function spawnBot(options: SpawnBotOptions = {}): SpawnedBot {
  const env = { ...(options.inheritEnv === false ? {} : process.env), ...options.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(
    process.execPath,
    ["--import", "tsx", options.entry ?? "src/main.ts", ...(options.args ?? [])],
    {
      cwd: options.cwd ?? REPO_ROOT,
      env,
      stdio: [options.stdin ?? "ignore", "pipe", "pipe"],
    },
  );
  const lines: LogLine[] = [];
  const jsonLines: LogLine[] = [];
  const watchers = new Set<(line: LogLine) => void>();
  let forced = false;
  let exitInfo: ExitInfo | undefined;

  const collect = (stream: NodeJS.ReadableStream, name: "stdout" | "stderr") => {
    createInterface({ input: stream }).on("line", (raw) => {
      let parsed: Record<string, unknown> | undefined;
      try {
        const value = JSON.parse(raw) as unknown;
        if (value && typeof value === "object" && !Array.isArray(value))
          parsed = value as Record<string, unknown>;
      } catch {
        // not JSON: kept as raw text
      }
      const line: LogLine = { ...parsed, raw, stream: name };
      lines.push(line);
      if (parsed) jsonLines.push(line);
      if (options.echo) process.stderr.write(`[bot ${name}] ${raw}\n`);
      for (const watcher of [...watchers]) watcher(line);
    });
  };
  collect(child.stdout!, "stdout");
  collect(child.stderr!, "stderr");

  const exited = new Promise<ExitInfo>((resolveExit) => {
    child.once("exit", (code, signal) => {
      // Let the last output lines arrive before reporting the exit.
      setImmediate(() => {
        exitInfo = { code, signal, forced };
        running.delete(bot);
        resolveExit(exitInfo);
      });
    });
  });

  const tail = () =>
    lines
      .slice(-20)
      .map((line) => `  [${line.stream}] ${line.raw}`)
      .join("\n") || "  (no output)";

  const bot: SpawnedBot = {
    child,
    pid: child.pid ?? -1,
    lines,
    logs: () => [...jsonLines],
    waitForLog(matcher, waitOptions = {}) {
      const test = toMatcher(matcher);
      const found = lines.find(test);
      if (found) return Promise.resolve(found);
      const timeoutMs = waitOptions.timeoutMs ?? 20_000;
      return new Promise((resolveLine, reject) => {
        const done = () => {
          clearTimeout(timer);
          watchers.delete(watcher);
        };
        const watcher = (line: LogLine) => {
          if (!test(line)) return;
          done();
          resolveLine(line);
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `No log line matching ${String(matcher)} within ${timeoutMs} ms. Last output:\n${tail()}`,
            ),
          );
        }, timeoutMs);
        watchers.add(watcher);
        void exited.then((info) => {
          if (!watchers.has(watcher)) return;
          done();
          reject(
            new Error(
              `The process exited (code ${info.code}, signal ${info.signal}) before logging ${String(matcher)}. Last output:\n${tail()}`,
            ),
          );
        });
      });
    },
    async kill(signal = "SIGTERM", killOptions = {}) {
      if (exitInfo) return exitInfo;
      child.kill(signal);
      const timer = setTimeout(() => {
        forced = true;
        child.kill("SIGKILL");
      }, killOptions.timeoutMs ?? 15_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    exited,
    get exitInfo() {
      return exitInfo;
    },
  };
  running.add(bot);
  return bot;
}

/** Kill every child still running (call in afterAll/afterEach so a failed test leaves no process). */
export async function stopAllBots(): Promise<void> {
  await Promise.all([...running].map((bot) => bot.kill("SIGKILL", { timeoutMs: 5_000 })));
}

/**
 * The environment of a spawned production-shaped bot against this test's Telegram emulator, sandbox and Redis
 * database (JSON logs at info, so tests can wait for "bot started"); `extra` adds or overrides variables.
 */
export function spawnedBotEnv(
  outside: {
    tg: { token: string; apiRoot: string };
    sandbox: { baseUrl: string; apiKey: string; webhookSecret: string };
    redisUrl: string;
  },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    NODE_ENV: "test",
    BOT_TOKEN: outside.tg.token,
    TELEGRAM_API_ROOT: outside.tg.apiRoot,
    PAYOUT_API_BASE_URL: outside.sandbox.baseUrl,
    PAYOUT_API_KEY: outside.sandbox.apiKey,
    PAYOUT_WEBHOOK_SECRET: outside.sandbox.webhookSecret,
    PAYOUT_ENV: "sandbox",
    REDIS_URL: outside.redisUrl,
    HOST: "127.0.0.1",
    PORT: "0",
    METRICS_PORT: "0",
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    ...extra,
  };
}
