import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { freePort } from "#src/standins/local/redis-server.js";
import { readProcStat } from "../lib/thread-cpu.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * One production-shaped bot process (`node --import tsx src/main.ts`, configured only by its environment, as a
 * deployment would run it), with its log lines counted by level and its CPU read from /proc.
 */
export interface BotProcess {
  role: "all" | "web" | "worker";
  port: number;
  /** The metrics listener's port (GET /metrics). */
  metricsPort: number;
  pid: number;
  /** error- and fatal-level log lines so far, and the first few of them. */
  errors(): { count: number; samples: string[] };
  /** Notifications found in flight after a crash and not sent again (their log lines). */
  notRepeated(): number;
  /** user + system CPU seconds of the process so far (Linux /proc). */
  cpuSeconds(): number;
  /** Resident memory now and at its peak, in bytes (Linux /proc: VmRSS, VmHWM). */
  rss(): { now: number; peak: number };
  kill(): void;
  stop(): Promise<void>;
}

/**
 * The environment of a bench deployment in webhook mode: Telegram (the emulator) pushes to `publicUrl` (the proxy),
 * the payout API is the bench sandbox, all processes share one Redis.
 */
export function webhookDeploymentEnv(input: {
  telegram: { token: string; apiRoot: string };
  sandbox: { baseUrl: string; apiKey: string; webhookSecret: string };
  publicUrl: string;
  redisUrl: string;
}): Record<string, string> {
  return {
    BOT_TOKEN: input.telegram.token,
    TELEGRAM_API_ROOT: input.telegram.apiRoot,
    // The emulator has no flood limits here: the bench measures CPU, not Telegram's pacing.
    TELEGRAM_THROTTLE: "false",
    // Simulated users have no think time: flood control runs but never trips.
    USER_RATE_LIMIT: "1000000/10",
    BOT_MODE: "webhook",
    PUBLIC_URL: input.publicUrl,
    TELEGRAM_WEBHOOK_SECRET: "bench-deployment-secret",
    PAYOUT_API_BASE_URL: input.sandbox.baseUrl,
    PAYOUT_API_KEY: input.sandbox.apiKey,
    PAYOUT_WEBHOOK_SECRET: input.sandbox.webhookSecret,
    PAYOUT_ENV: "sandbox",
    REDIS_URL: input.redisUrl,
  };
}

export async function startBotProcess(options: {
  role: "all" | "web" | "worker";
  env: Record<string, string>;
  /** Node arguments that start the bot; TypeScript through tsx by default, a compiled main.js for production runs. */
  entry?: string[];
}): Promise<BotProcess> {
  const port = await freePort();
  const metricsPort = await freePort();
  const child: ChildProcess = spawn(process.execPath, options.entry ?? ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      LOG_FORMAT: "json",
      LOG_LEVEL: "info",
      HOST: "127.0.0.1",
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      PROCESS_ROLE: options.role,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let errors = 0;
  let notRepeated = 0;
  let started = false;
  const samples: string[] = [];
  let buffered = "";
  // BENCH_LOG_DIR keeps every line each process printed (<dir>/<role>-<pid>.log), for diagnosing a run.
  const logFile = process.env.BENCH_LOG_DIR
    ? `${process.env.BENCH_LOG_DIR}/${options.role}-${child.pid}.log`
    : "";
  const onOutput = (chunk: Buffer) => {
    if (logFile) appendFileSync(logFile, chunk);
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (/"msg":"(bot started|events worker started)"/.test(line)) started = true;
      if (line.includes("not sent again")) notRepeated += 1;
      if (/"level":(50|60)/.test(line) || /^\s*(Error|TypeError)\b/.test(line)) {
        errors += 1;
        if (samples.length < 5) samples.push(line.slice(0, 400));
      }
    }
  };
  child.stdout?.on("data", onOutput);
  child.stderr?.on("data", onOutput);

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${options.role} process exited at start: ${samples.join("\n")}`);
    if (started) break;
    if (Date.now() > deadline) throw new Error(`${options.role} process did not start within a minute`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const pid = child.pid ?? 0;
  return {
    role: options.role,
    port,
    metricsPort,
    pid,
    errors: () => ({ count: errors, samples: [...samples] }),
    notRepeated: () => notRepeated,
    cpuSeconds() {
      return (readProcStat(`/proc/${pid}/stat`)?.cpuMs ?? 0) / 1000;
    },
    rss() {
      try {
        const status = readFileSync(`/proc/${pid}/status`, "utf8");
        const kb = (field: string) =>
          Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
        return { now: kb("VmRSS") * 1024, peak: kb("VmHWM") * 1024 };
      } catch {
        return { now: 0, peak: 0 };
      }
    },
    kill: () => child.kill("SIGKILL"),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
