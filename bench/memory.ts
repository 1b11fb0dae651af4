import type { Bot, Context } from "grammy";
import { createBot } from "#src/bot/create-bot.js";
import { allFeatures } from "#src/bot/features.js";
import { boolOption, intOption } from "./lib/args.ts";
import { buildBotDeps } from "./lib/bot-deps.ts";
import { runningCompiled, runPart } from "./lib/compiled.ts";
import { chooseJourney } from "./lib/journeys.ts";
import { BENCH_BOT, BENCH_TOKEN, LocalTelegram } from "./lib/local-telegram.ts";
import { redisSnapshot, startBenchRedis } from "./lib/redis.ts";
import { bytes, check, machineLine, num, progress, table, targetsTable, writeResults } from "./lib/report.ts";
import { runJourneys } from "./lib/runner.ts";
import { startSandboxProcess } from "./lib/sandbox-process.ts";

/**
 * Part 4: memory. (a) Redis bytes of one user's session and conversation keys (MEMORY USAGE) after each step of
 * the journey; (b) this process's RSS with many users holding a session and an active conversation, after GC.
 * (b) shares the process with the harness and the emulator and forces GCs: it shows where memory goes (heap vs
 * native); the deployed figure, read against the RSS target, is `npm run bench:rss`.
 *
 *   npm run bench:memory -- [--sessions 10000] [--hold 2] [--sample 10] [--crowd-concurrency 200] [--compiled]
 *
 * --compiled: measure the production build instead (src/ and bench/ compiled by tsc, run by plain node without
 * tsx: what `npm run start:prod` and the Docker image run); results go to bench/results/memory-compiled.json.
 */
const COMPILED = boolOption("compiled", "BENCH_MEMORY_COMPILED", false);
/** How this process runs the code: TypeScript through tsx, or compiled JavaScript (bench/lib/compiled.ts). */
const MODE = runningCompiled ? "compiled" : "tsx";
const MODE_LABEL = runningCompiled ? "compiled by tsc, plain node (production)" : "TypeScript through tsx";
const USERS = intOption("sessions", "BENCH_MEMORY_SESSIONS", 10_000);
/** How many journey steps the crowd walks before it is measured (2: /start + "Send money" → a live flow). */
const HOLD = intOption("hold", "BENCH_MEMORY_HOLD", 2);
const SAMPLE = intOption("sample", "BENCH_MEMORY_SAMPLE", 10);
const CONCURRENCY = intOption("crowd-concurrency", "BENCH_MEMORY_CONCURRENCY", 200);

function settleGc(): void {
  // Twice: the first pass may only promote what the second one frees.
  globalThis.gc?.();
  globalThis.gc?.();
}

async function main(): Promise<void> {
  const started = Date.now();
  settleGc();
  const loaded = process.memoryUsage();
  const bench = await startBenchRedis();
  // The sandbox runs in a child process: the process measured holds what a production bot holds (a production
  // process never loads the sandbox; main.ts imports it only when it embeds one).
  const sandboxProcess = await startSandboxProcess();
  const sandbox = sandboxProcess.address;
  const tg = new LocalTelegram();
  const built = await buildBotDeps({ redis: bench.redis, sandbox, logLevel: "info" });
  const features = allFeatures(built.deps);
  const journey = chooseJourney(features);
  const bot = createBot(built.deps, {
    token: BENCH_TOKEN,
    botInfo: BENCH_BOT,
    transformers: built.transformers,
    features,
  }) as unknown as Bot<Context>;
  tg.attach(bot);
  const steps = journey.steps;
  const handle = (update: Parameters<typeof bot.handleUpdate>[0]) => bot.handleUpdate(update);
  const probe = bench.probe;
  const usage = async (key: string) =>
    Number((await probe.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);

  // (b) first, before QR rendering and quotes fragment the heap: RSS with USERS users holding a live flow.
  const holdSteps = steps.slice(0, Math.max(1, Math.min(HOLD, steps.length)));
  progress(`memory: warm-up, then ${USERS} users walk ${holdSteps.map((s) => s.name).join(" → ")}`);
  await runJourneys({
    handle,
    tg,
    steps: holdSteps,
    users: 200,
    firstUserId: 2_000_000,
    concurrency: 50,
    scripted: true,
    onUserDone: (id) => tg.forget(id),
  });
  await bench.probe.flushdb();
  settleGc();
  const baseline = process.memoryUsage();
  const redisBefore = await redisSnapshot(probe);
  const crowd = await runJourneys({
    handle,
    tg,
    steps: holdSteps,
    users: USERS,
    firstUserId: 3_000_000,
    concurrency: CONCURRENCY,
    scripted: true,
    onUserDone: (userId) => tg.forget(userId),
  });
  settleGc();
  const after = process.memoryUsage();
  const redisAfter = await redisSnapshot(probe);
  const keys = await probe.dbsize();
  const convKeys = (await probe.keys("conv:*")).length;
  const heldSessions =
    (await probe.exists(...Array.from({ length: Math.min(USERS, 1000) }, (_, i) => String(3_000_000 + i)))) /
    Math.min(USERS, 1000);
  const redisPerUser = (redisAfter.usedMemory - redisBefore.usedMemory) / Math.max(1, USERS);

  // (a) Key sizes after each step, one user at a time.
  progress(`memory: key sizes after each step (${SAMPLE} users)`);
  const sizes = new Map<
    string,
    { session: number[]; conversation: number[]; user: number[]; json: number[] }
  >();
  const perStep = await runJourneys({
    handle,
    tg,
    steps,
    users: SAMPLE,
    firstUserId: 1_000_000,
    concurrency: 1,
    scripted: true,
    onUserDone: (userId) => tg.forget(userId),
    afterStep: async (userId, step) => {
      const entry = sizes.get(step.name) ?? { session: [], conversation: [], user: [], json: [] };
      entry.session.push(await usage(String(userId)));
      entry.conversation.push(await usage(`conv:${userId}`));
      entry.user.push(await usage(`user:${userId}`));
      entry.json.push(Number(await probe.strlen(`conv:${userId}`)));
      sizes.set(step.name, entry);
    },
  });
  const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
  const stepRows = steps.map((step) => {
    const entry = sizes.get(step.name) ?? { session: [], conversation: [], user: [], json: [] };
    return {
      step: step.name,
      session: mean(entry.session),
      conversation: mean(entry.conversation),
      conversationJson: mean(entry.json),
      user: mean(entry.user),
    };
  });
  const activeRows = stepRows.filter((row) => row.conversation > 0);
  const worstActive = Math.max(0, ...activeRows.map((row) => row.session + row.conversation));

  const checks = [
    check(
      "Crowd journeys completed",
      `${USERS}/${USERS}`,
      `${crowd.completedJourneys}/${USERS}`,
      crowd.failures.length === 0,
    ),
    check(
      "Redis per active conversation (session + conversation keys, worst step)",
      "≤ 2 KB",
      bytes(worstActive),
      worstActive <= 2048,
    ),
  ];
  const lines = [
    runningCompiled ? "## Part 4b — Memory, production build" : "## Part 4 — Memory",
    "",
    `Code loaded as: **${MODE_LABEL}**.`,
    "",
    `Redis MEMORY USAGE of one user's keys after each step of **${journey.name}** (mean of ${SAMPLE} users walking alone): the session (key = chat id), the conversation (\`conv:\` + chat id; deleted when the flow ends) and the user record. ${machineLine()}.`,
    "",
    table(
      ["After step", "Session", "Conversation", "Conversation JSON", "User record", "Session + conversation"],
      stepRows.map((row) => [
        row.step,
        bytes(row.session),
        bytes(row.conversation),
        bytes(row.conversationJson),
        bytes(row.user),
        bytes(row.session + row.conversation),
      ]),
    ),
    "",
    `Process memory with ${num(USERS, 0)} users who walked ${holdSteps.map((s) => s.name).join(" → ")} (each holding a session and a live conversation; ${CONCURRENCY} at a time; the sandbox in its own process), after GC:`,
    "",
    table(
      ["", "Before the crowd", `With ${num(USERS, 0)} users`, "Per user"],
      [
        ["RSS right after loading the code (before any Redis, sandbox or bot)", bytes(loaded.rss), "", ""],
        ["RSS", bytes(baseline.rss), bytes(after.rss), bytes((after.rss - baseline.rss) / USERS)],
        [
          "Heap used",
          bytes(baseline.heapUsed),
          bytes(after.heapUsed),
          bytes((after.heapUsed - baseline.heapUsed) / USERS),
        ],
        ["Heap reserved (heapTotal)", bytes(baseline.heapTotal), bytes(after.heapTotal), ""],
        [
          "External + array buffers",
          bytes(baseline.external + baseline.arrayBuffers),
          bytes(after.external + after.arrayBuffers),
          "",
        ],
        [
          "Redis used_memory",
          bytes(redisBefore.usedMemory),
          bytes(redisAfter.usedMemory),
          bytes(redisPerUser),
        ],
        ["Redis keys", "", `${num(keys, 0)} (${num(convKeys, 0)} conversations)`, num(keys / USERS, 1)],
        ["Sessions present (sample of 1,000)", "", `${num(heldSessions * 100, 0)}%`, ""],
        [
          "Crowd wall time",
          "",
          `${num(crowd.wallMs / 1000, 1)} s (${num(crowd.updates / (crowd.wallMs / 1000), 0)} updates/s)`,
          "",
        ],
      ],
    ),
    "",
    targetsTable(checks),
  ];
  const failures = [...perStep.failures, ...crowd.failures];
  if (failures.length > 0) {
    lines.push("", `Failed journeys: ${failures.length} (first 3):`, "");
    for (const failure of failures.slice(0, 3))
      lines.push(
        `- user ${failure.userId}, step "${failure.step}": ${failure.reason}; bot showed: ${failure.shown}`,
      );
  }
  console.log(lines.join("\n"));
  const path = writeResults(runningCompiled ? "memory-compiled" : "memory", {
    mode: MODE,
    settings: {
      users: USERS,
      hold: holdSteps.map((s) => s.name),
      sample: SAMPLE,
      concurrency: CONCURRENCY,
      sandbox: sandboxProcess.where,
      gcExposed: typeof globalThis.gc === "function",
    },
    journey: journey.name,
    perStep: stepRows,
    process: { loaded, baseline, after, perUserRss: (after.rss - baseline.rss) / USERS },
    redis: {
      before: redisBefore.usedMemory,
      after: redisAfter.usedMemory,
      perUser: redisPerUser,
      keys,
      convKeys,
    },
    targets: checks,
    durationSeconds: (Date.now() - started) / 1000,
  });
  progress(`memory: results in ${path}`);
  await built.api.close();
  await sandboxProcess.stop();
  await bench.stop();
}

runPart("memory", COMPILED, main);
