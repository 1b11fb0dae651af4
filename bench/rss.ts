import { join } from "node:path";
import { startTelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { intOption, stringOption } from "./lib/args.ts";
import { buildCompiledBench, COMPILED_DIR } from "./lib/compiled.ts";
import { imageAllocatorEnv } from "./lib/image-allocator.ts";
import { startBenchRedis } from "./lib/redis.ts";
import { bytes, check, machineLine, num, progress, table, targetsTable, writeResults } from "./lib/report.ts";
import { type ResidentBreakdown, residentBreakdown } from "./lib/resident.ts";
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
 *   [BENCH_RSS_NODE_FLAGS="--max-semi-space-size=8"] [BENCH_RSS_MALLOC=image|glibc|<GLIBC_TUNABLES>] npm run bench:rss -- [--sessions 10000]
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
/** The measured process's allocator: "image" (the Dockerfile's jemalloc and MALLOC_CONF, as deployed), "glibc"
 * (glibc's malloc with its defaults) or a GLIBC_TUNABLES value (glibc's malloc tuned). */
const MALLOC = stringOption("malloc", "BENCH_RSS_MALLOC", "image");
/** More environment for the measured process ("NAME=value NAME=value"), e.g. MALLOC_CONF variations. */
const EXTRA_ENV = Object.fromEntries(
  stringOption("env", "BENCH_RSS_ENV", "")
    .split(" ")
    .filter((pair) => pair.includes("="))
    .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
);
const MB = 1024 * 1024;

function allocatorEnv(): Record<string, string> {
  if (MALLOC === "image") return imageAllocatorEnv();
  if (MALLOC === "glibc") return {};
  return { GLIBC_TUNABLES: MALLOC };
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
  const allocator = { ...allocatorEnv(), ...EXTRA_ENV };
  const bot = await startBotProcess({
    role: "all",
    env: { ...env, ...allocator },
    entry: [...NODE_FLAGS, join(COMPILED_DIR, "src", "main.js")],
  });
  proxy.setUpstreams([bot.port]);
  try {
    await holdFlow(tg, 1);
    // Long enough for V8's memory reducer to run on what starting up left behind.
    await sleep(20_000);
    const idle = bot.rss();
    const metricsUrl = `http://127.0.0.1:${bot.metricsPort}/metrics`;
    const idleWhere = await residentBreakdown(bot.pid, metricsUrl);
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
    const quietWhere = await residentBreakdown(bot.pid, metricsUrl);
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
    const malloc =
      Object.entries(allocator)
        .map(([name, value]) => `${name}=${value}`)
        .join(" ") || "glibc's malloc with its defaults";
    const machine = machineLine(allocator.LD_PRELOAD?.includes("jemalloc") ? "jemalloc" : "glibc malloc");
    const lines = [
      "## Resident memory of a deployed process",
      "",
      `The production build (plain node, PROCESS_ROLE=all, webhook mode) in its own process; node flags: ${flags}; ${malloc}. ` +
        `${num(USERS, 0)} users walk /start → /send, ${CONCURRENCY} at a time, each left in a live payout flow. ${machine}.`,
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
      "Where it is (from `/proc/<pid>/smaps`, and V8's heap from the process's `/metrics`):",
      "",
      whereTable(idleWhere, quietWhere),
      "",
      `Redis: ${num(convKeys, 0)} live conversations. CPU: ${num((cpuSeconds * 1000) / (2 * USERS), 2)} ms per update.`,
      "",
      targetsTable(checks),
      ...errors.samples.map((line) => `    ${line}`),
    ];
    console.log(lines.join("\n"));
    const path = writeResults("rss", {
      machine,
      settings: {
        users: USERS,
        concurrency: CONCURRENCY,
        quietSeconds: QUIET_SECONDS,
        nodeFlags: NODE_FLAGS,
        malloc: allocator,
      },
      idle,
      idleWhere,
      crowd,
      series,
      settledAt,
      quiet,
      quietWhere,
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

const signedBytes = (value: number) => (value < 0 ? `−${bytes(-value)}` : `+${bytes(value)}`);

function whereTable(idle: ResidentBreakdown, quiet: ResidentBreakdown): string {
  const rows: Array<[string, keyof ResidentBreakdown]> = [
    ["V8 heap pages (256 KB mappings), resident", "v8Pages"],
    ["  V8 heap: live objects", "heapUsed"],
    ["  V8 heap: committed", "heapCommitted"],
    ["glibc malloc's main arena ([heap]; none under jemalloc)", "mallocHeap"],
    ["other anonymous (jemalloc's or glibc's large blocks, stacks, V8's large objects)", "otherAnonymous"],
    ["  external memory V8 knows of (buffers)", "external"],
    ["the node binary", "nodeBinary"],
    ["shared libraries, other files", "otherFiles"],
  ];
  return table(
    ["", "Idle", "Settled", "Difference"],
    rows.map(([label, key]) => [
      label,
      bytes(idle[key]),
      bytes(quiet[key]),
      signedBytes(quiet[key] - idle[key]),
    ]),
  );
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
