import { startTelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { intOption, stringOption } from "./lib/args.ts";
import { startBenchRedis } from "./lib/redis.ts";
import { machineLine, num, progress, summarize, table, writeResults } from "./lib/report.ts";
import { startSandboxProcess } from "./lib/sandbox-process.ts";
import { type BotProcess, startBotProcess, webhookDeploymentEnv } from "./scale/bot-process.ts";
import { journey, UPDATES_PER_JOURNEY } from "./scale/journey.ts";
import { startRoundRobinProxy } from "./scale/proxy.ts";

/**
 * Scale-out: 1, 2, 3… `web` processes in webhook mode behind a round-robin proxy on loopback, plus one `worker`,
 * all on one Redis. Telegram (the emulator, in this process) pushes each update to the proxy, so consecutive updates
 * of one chat land on different processes. N users run the whole NGN payout journey at once; the report gives
 * throughput per process count, CPU per update across every bot process, errors, and whether every journey ended
 * with exactly the messages it should (one quote per journey at the payout API, the same message count per chat).
 *
 *   npm run bench:scale -- [--processes 1,2,3] [--users 200]
 */
const PROCESS_COUNTS = stringOption("processes", "BENCH_PROCESSES", "1,2,3")
  .split(",")
  .map((value) => Number(value.trim()))
  .filter((value) => Number.isSafeInteger(value) && value > 0);
const USERS = intOption("users", "BENCH_USERS", 200);
interface RunResult {
  processes: number;
  users: number;
  completed: number;
  wallSeconds: number;
  updatesPerSecond: number;
  cpuMsPerUpdate: number;
  journeyMs: ReturnType<typeof summarize>;
  quotesAtApi: number;
  messageCounts: Record<number, number>;
  errorLines: number;
  errorSamples: string[];
  failures: string[];
  requestsPerProcess: number[];
}

async function main(): Promise<void> {
  progress(`scale: ${USERS} journeys at once through ${PROCESS_COUNTS.join(", ")} web processes + 1 worker`);
  const results: RunResult[] = [];
  for (const processes of PROCESS_COUNTS) results.push(await run(processes));

  const base = results[0];
  const rows = results.map((result) => [
    result.processes,
    `${result.completed}/${result.users}`,
    num(result.wallSeconds, 1),
    num(result.updatesPerSecond, 0),
    base ? `${num(result.updatesPerSecond / base.updatesPerSecond, 2)}×` : "",
    num(result.cpuMsPerUpdate, 2),
    num(result.journeyMs.p50 / 1000, 1),
    num(result.journeyMs.p99 / 1000, 1),
    result.quotesAtApi,
    Object.entries(result.messageCounts)
      .map(([count, users]) => `${count} msgs × ${users}`)
      .join(", "),
    result.errorLines,
  ]);
  const report = [
    "## Scale-out (web processes behind a round-robin proxy, one worker, one Redis)",
    "",
    machineLine(),
    "",
    table(
      [
        "web processes",
        "journeys completed",
        "wall s",
        "updates/s",
        "vs 1",
        "CPU ms/update (all bot processes)",
        "journey p50 s",
        "journey p99 s",
        "quotes at API",
        "messages per chat",
        "error log lines",
      ],
      rows,
    ),
    "",
    ...results.flatMap((result) =>
      result.failures.length > 0 || result.errorSamples.length > 0
        ? [
            `With ${result.processes}: ${result.failures.slice(0, 5).join("; ")}`,
            ...result.errorSamples.map((line) => `    ${line}`),
          ]
        : [],
    ),
  ].join("\n");
  process.stdout.write(`${report}\n`);
  writeResults("scale", { machine: machineLine(), users: USERS, results });
}

async function run(processCount: number): Promise<RunResult> {
  const bench = await startBenchRedis();
  const sandboxProcess = await startSandboxProcess();
  const sandbox = sandboxProcess.address;
  const tg = await startTelegramEmulator({ defaultTimeoutMs: 120_000, callbackAnswerTimeoutMs: 60_000 });
  const proxy = await startRoundRobinProxy();
  const env = webhookDeploymentEnv({
    telegram: tg,
    sandbox,
    publicUrl: proxy.url,
    redisUrl: bench.server.url,
  });
  const bots: BotProcess[] = [];
  try {
    bots.push(await startBotProcess({ role: "worker", env }));
    for (let index = 0; index < processCount; index += 1) {
      bots.push(await startBotProcess({ role: "web", env }));
    }
    const webs = bots.filter((bot) => bot.role === "web");
    proxy.setUpstreams(webs.map((bot) => bot.port));
    progress(`${processCount} web: started (pids ${bots.map((bot) => bot.pid).join(", ")})`);

    // One journey alone first: its message count is what every journey must end with.
    const reference = await journey(tg, 1);
    if (!reference.ok) {
      const samples = bots.flatMap((bot) => bot.errors().samples);
      throw new Error(`the reference journey failed: ${reference.error}\n${samples.join("\n")}`);
    }

    const cpuBefore = bots.map((bot) => bot.cpuSeconds());
    const started = performance.now();
    const journeys = await Promise.all(
      Array.from({ length: USERS }, (_, index) => journey(tg, 10_000 + index)),
    );
    const wallSeconds = (performance.now() - started) / 1000;
    const cpuSeconds = bots.reduce(
      (total, bot, index) => total + bot.cpuSeconds() - (cpuBefore[index] ?? 0),
      0,
    );

    const completed = journeys.filter((result) => result.ok);
    const messageCounts: Record<number, number> = {};
    for (const result of completed)
      messageCounts[result.messages] = (messageCounts[result.messages] ?? 0) + 1;
    const failures = journeys.flatMap((result) => (result.ok ? [] : [result.error ?? "failed"]));
    const wrongCount = completed.filter((result) => result.messages !== reference.messages).length;
    if (wrongCount > 0)
      failures.push(`${wrongCount} journeys ended with another message count than ${reference.messages}`);
    const quotesAtApi = await countOrders(sandbox.baseUrl, sandbox.apiKey);
    const errors = bots.map((bot) => bot.errors());
    const updates = completed.length * UPDATES_PER_JOURNEY;
    progress(
      `${processCount} web: ${completed.length}/${USERS} journeys in ${num(wallSeconds, 1)} s, ` +
        `${num(updates / wallSeconds, 0)} updates/s`,
    );
    return {
      processes: processCount,
      users: USERS,
      completed: completed.length,
      wallSeconds,
      updatesPerSecond: updates / wallSeconds,
      cpuMsPerUpdate: (cpuSeconds * 1000) / Math.max(1, USERS * UPDATES_PER_JOURNEY),
      journeyMs: summarize(completed.map((result) => result.ms)),
      // The reference journey made one quote too.
      quotesAtApi: quotesAtApi - 1,
      messageCounts,
      errorLines: errors.reduce((total, entry) => total + entry.count, 0),
      errorSamples: errors.flatMap((entry) => entry.samples).slice(0, 5),
      failures,
      requestsPerProcess: webs.map((bot) => proxy.counts().get(bot.port) ?? 0),
    };
  } finally {
    await Promise.all(bots.map((bot) => bot.stop()));
    await proxy.close();
    await tg.close();
    await sandboxProcess.stop();
    await bench.stop();
  }
}

async function countOrders(baseUrl: string, apiKey: string): Promise<number> {
  const response = await fetch(`${baseUrl}/order/all`, { headers: { "X-API-KEY": apiKey } });
  const body = (await response.json()) as { data?: unknown[] };
  return body.data?.length ?? 0;
}

await main();
