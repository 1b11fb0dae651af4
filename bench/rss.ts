import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startTelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { intOption, stringOption } from "./lib/args.ts";
import { buildCompiledBench, COMPILED_DIR } from "./lib/compiled.ts";
import { startBenchRedis } from "./lib/redis.ts";
import { bytes, check, machineLine, num, progress, table, targetsTable, writeResults } from "./lib/report.ts";
import { startSandboxProcess } from "./lib/sandbox-process.ts";
import { startBotProcess, webhookDeploymentEnv } from "./scale/bot-process.ts";
import { startRoundRobinProxy } from "./scale/proxy.ts";

/**
 * Resident memory of a deployed bot, read from the outside: the production build (compiled by tsc, plain node) runs
 * as its own process with PROCESS_ROLE=all (bot, events worker and jobs) in webhook mode, and the Telegram emulator
 * in this process drives N users through /start → /send, each left holding a session and a live payout flow. The
 * process's VmRSS and VmHWM come from /proc: idle, at the peak, right after the crowd, then while it is left alone.
 * Nothing of the harness lives in the measured process.
 *
 *   [BENCH_RSS_NODE_FLAGS="--max-semi-space-size=8"] [BENCH_RSS_MALLOC=default] npm run bench:rss -- [--sessions 10000]
 *     [--concurrency 200] [--quiet 60]
 */
const USERS = intOption("sessions", "BENCH_RSS_SESSIONS", 10_000);
const CONCURRENCY = intOption("concurrency", "BENCH_RSS_CONCURRENCY", 200);
const QUIET_SECONDS = intOption("quiet", "BENCH_RSS_QUIET", 60);
/** Node flags for the measured process, to compare V8 settings with the defaults (environment only: a value that
 * starts with "--" reads as a flag on the command line). */
const NODE_FLAGS = stringOption("node-flags", "BENCH_RSS_NODE_FLAGS", "")
  .split(" ")
  .filter((flag) => flag.length > 0);
/** glibc's malloc settings for the measured process: the image's (its Dockerfile's GLIBC_TUNABLES) unless
 * BENCH_RSS_MALLOC says otherwise ("default": glibc's own defaults; anything else: a GLIBC_TUNABLES value). */
const MALLOC = stringOption("malloc", "BENCH_RSS_MALLOC", imageTunables());
const MB = 1024 * 1024;

function imageTunables(): string {
  const dockerfile = readFileSync(new URL("../Dockerfile", import.meta.url), "utf8");
  const tunables = /^\s*GLIBC_TUNABLES=(\S+)/m.exec(dockerfile)?.[1];
  if (!tunables) throw new Error("the Dockerfile sets no GLIBC_TUNABLES");
  return tunables;
}

async function main(): Promise<void> {
  progress("rss: building the production code");
  buildCompiledBench();
  const bench = await startBenchRedis();
  const sandbox = await startSandboxProcess();
  const tg = await startTelegramEmulator({ defaultTimeoutMs: 120_000, callbackAnswerTimeoutMs: 60_000 });
  const proxy = await startRoundRobinProxy();
  const env = webhookDeploymentEnv({
    telegram: tg,
    sandbox: sandbox.address,
    publicUrl: proxy.url,
    redisUrl: bench.server.url,
  });
  const bot = await startBotProcess({
    role: "all",
    env: MALLOC === "default" ? env : { ...env, GLIBC_TUNABLES: MALLOC },
    entry: [...NODE_FLAGS, join(COMPILED_DIR, "src", "main.js")],
  });
  proxy.setUpstreams([bot.port]);
  try {
    await holdFlow(tg, 1);
    // Long enough for V8's memory reducer to run on what starting up left behind.
    await sleep(20_000);
    const idle = bot.rss();
    progress(
      `rss: ${USERS} users, ${CONCURRENCY} at a time, walk /start → /send (pid ${bot.pid}, idle ${bytes(idle.now)})`,
    );
    const cpuBefore = bot.cpuSeconds();
    const started = performance.now();
    let next = 0;
    let failures = 0;
    const lane = async () => {
      for (let id = next++; id < USERS; id = next++) {
        if (!(await holdFlow(tg, 1_000_000 + id))) failures += 1;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    const wallSeconds = (performance.now() - started) / 1000;
    const cpuSeconds = bot.cpuSeconds() - cpuBefore;
    const crowd = bot.rss();

    progress(
      `rss: crowd done in ${num(wallSeconds, 1)} s (${bytes(crowd.now)}); ${QUIET_SECONDS} s left alone`,
    );
    const series: Array<{ second: number; rss: number }> = [];
    for (let second = 1; second <= QUIET_SECONDS; second++) {
      await sleep(1_000);
      series.push({ second, rss: bot.rss().now });
    }
    const quiet = series.at(-1)?.rss ?? bot.rss().now;
    const settledAt =
      series.find((sample) => Math.abs(sample.rss - quiet) <= 2 * MB)?.second ?? QUIET_SECONDS;
    // Counted after the quiet time: the bot saves a conversation just after its reply, which the crowd awaited.
    const convKeys = (await bench.probe.keys("conv:*")).length;
    const errors = bot.errors();
    const at = (second: number) => series.find((sample) => sample.second === second)?.rss ?? 0;
    const marks = [5, 10, 20, 30, 45, 60, 90, 120].filter((second) => second <= QUIET_SECONDS);

    const checks = [
      check(
        "Users holding a session and a live flow",
        `${USERS}/${USERS}`,
        `${USERS - failures}/${USERS}`,
        failures === 0,
      ),
      check(
        `RSS with ${num(USERS, 0)} sessions, deployed process left alone ${QUIET_SECONDS} s`,
        "≤ 120 MB",
        bytes(quiet),
        quiet <= 120 * MB,
      ),
      check("Error log lines", "0", String(errors.count), errors.count === 0),
    ];
    const flags = NODE_FLAGS.length > 0 ? NODE_FLAGS.join(" ") : "none (as the image runs it)";
    const malloc = MALLOC === "default" ? "glibc's defaults" : `GLIBC_TUNABLES=${MALLOC}`;
    const lines = [
      "## Resident memory of a deployed process",
      "",
      `The production build (plain node, PROCESS_ROLE=all, webhook mode) in its own process; node flags: ${flags}; ${malloc}. ` +
        `${num(USERS, 0)} users walk /start → /send, ${CONCURRENCY} at a time, each left in a live payout flow. ${machineLine()}.`,
      "",
      table(
        ["", "RSS"],
        [
          ["Idle, 20 s after one user's /start → /send", bytes(idle.now)],
          ["Peak during the crowd (VmHWM)", bytes(crowd.peak)],
          [
            `Right after the crowd (${num(wallSeconds, 1)} s, ${num((2 * USERS) / wallSeconds, 0)} updates/s)`,
            bytes(crowd.now),
          ],
          ...marks.map((second) => [`Left alone ${second} s`, bytes(at(second))] as [string, string]),
          [`Settled (within 2 MB of the last sample) after`, `${settledAt} s`],
          ["Per session, settled vs idle", bytes((quiet - idle.now) / USERS)],
        ],
      ),
      "",
      `Redis: ${num(convKeys, 0)} live conversations. CPU: ${num((cpuSeconds * 1000) / (2 * USERS), 2)} ms per update.`,
      "",
      targetsTable(checks),
      ...errors.samples.map((line) => `    ${line}`),
    ];
    console.log(lines.join("\n"));
    const path = writeResults("rss", {
      machine: machineLine(),
      settings: {
        users: USERS,
        concurrency: CONCURRENCY,
        quietSeconds: QUIET_SECONDS,
        nodeFlags: NODE_FLAGS,
        malloc: MALLOC,
      },
      idle,
      crowd,
      series,
      settledAt,
      quiet,
      perSession: (quiet - idle.now) / USERS,
      wallSeconds,
      cpuMsPerUpdate: (cpuSeconds * 1000) / (2 * USERS),
      failures,
      errorLines: errors.count,
      targets: checks,
    });
    progress(`rss: results in ${path}`);
  } finally {
    await bot.stop();
    await proxy.close();
    await tg.close();
    await sandbox.stop();
    await bench.stop();
  }
}

/** /start, then /send: the user ends holding a session and a live payout flow (the country question). */
async function holdFlow(tg: Awaited<ReturnType<typeof startTelegramEmulator>>, id: number): Promise<boolean> {
  const user = tg.user({ id, first_name: `User${id}`, language_code: "en" });
  try {
    await user.send("/start");
    await user.nextMessage();
    await user.send("/send");
    await user.nextMessage({ match: /Where does it go/ });
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

await main();
