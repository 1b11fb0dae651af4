import type { Bot, Context } from "grammy";
import { createBot } from "#src/bot/create-bot.js";
import { allFeatures } from "#src/bot/features.js";
import { createTelegramTransformers } from "#src/bot/telegram-transformers.js";
import { boolOption, intOption, stringOption } from "./lib/args.ts";
import { buildBotDeps } from "./lib/bot-deps.ts";
import { runningCompiled, runPart } from "./lib/compiled.ts";
import { createFloorBot } from "./lib/floor-bot.ts";
import { chooseJourney } from "./lib/journeys.ts";
import { BENCH_BOT, BENCH_TOKEN, LocalTelegram } from "./lib/local-telegram.ts";
import { startOurBot } from "./lib/our-bot.ts";
import {
  measureAlone,
  measurePhase,
  type PerUpdate,
  type Phase,
  type PhaseOptions,
  perUpdate,
  stepRows,
} from "./lib/phases.ts";
import { startBenchRedis } from "./lib/redis.ts";
import {
  check,
  machineLine,
  ms,
  num,
  progress,
  summarize,
  table,
  targetsTable,
  writeResults,
} from "./lib/report.ts";
import { startSandboxProcess } from "./lib/sandbox-process.ts";
import { createPeerBot } from "./peer/peer-bot.ts";

/**
 * Parts 1 and 2: N simulated users run the whole journey at once through the real createBot (all features, Redis
 * sessions and conversations, the sandbox in a child process, Telegram answered in-process), then the same update shapes
 * go through the floor bot under the same conditions.
 *
 *   npm run bench:journey -- --users 1000 [--concurrency N] [--warmup 50] [--serial 20] [--log info] [--throttle]
 *     [--throttled-users 5] [--sandbox-in-process] [--compiled]
 *
 * --compiled: all three bots as production runs them (src/ and bench/ compiled by tsc, plain node without tsx,
 * bench/lib/compiled.ts); results go to bench/results/journey-compiled.json. Under tsx every closure created at
 * run time also pays esbuild's keep-names helper (`__name`), which the production build does not have.
 */
const COMPILED = boolOption("compiled", "BENCH_JOURNEY_COMPILED", false);
const USERS = intOption("users", "BENCH_USERS", 1000);
const CONCURRENCY = intOption("concurrency", "BENCH_CONCURRENCY", USERS);
const WARMUP = intOption("warmup", "BENCH_WARMUP", 50);
const SERIAL = intOption("serial", "BENCH_SERIAL", 20);
/** Users walked one at a time with Redis's counters read around every update (commands per step). */
const COUNTED = Math.min(SERIAL, 10);
const LOG_LEVEL = stringOption("log", "BENCH_LOG_LEVEL", "info");
/**
 * Ours goes through the update inbox as production does (record, per-chat lease, handle, acknowledge; Telegram
 * calls recorded per update); --inbox false feeds bot.handleUpdate directly.
 */
const INBOX = boolOption("inbox", "BENCH_INBOX", true);
/** Production installs the throttler; benches answer Telegram in-process and leave it off unless asked. */
const THROTTLE = boolOption("throttle", "BENCH_THROTTLE", false);
/** A few users through a bot with the production outbound policy (throttler on), to show its latency. */
const THROTTLED_USERS = intOption("throttled-users", "BENCH_THROTTLED_USERS", 5);
/**
 * The payout sandbox runs in a child process by default, as the real API is elsewhere: CPU per update is then the
 * bot's alone. --sandbox-in-process puts it here (local mode's shape; its pricing and invoice signing then count).
 */
const SANDBOX_IN_PROCESS = boolOption("sandbox-in-process", "BENCH_SANDBOX_IN_PROCESS", false);

async function main(): Promise<void> {
  const started = Date.now();
  progress(`journey: ${USERS} users, concurrency ${CONCURRENCY}`);
  const bench = await startBenchRedis();
  const sandboxProcess = await startSandboxProcess({ inProcess: SANDBOX_IN_PROCESS });
  const sandbox = sandboxProcess.address;
  const tg = new LocalTelegram();
  const built = await buildBotDeps({ redis: bench.redis, sandbox, logLevel: LOG_LEVEL, throttle: THROTTLE });
  const features = allFeatures(built.deps);
  const journey = chooseJourney(features);
  const steps = journey.steps;
  const ours = await startOurBot({
    redis: bench.redis,
    tg,
    built,
    features,
    concurrency: CONCURRENCY,
    inbox: INBOX,
  });
  const bot = ours.bot;
  const floor = createFloorBot(bench.redis, tg) as unknown as Bot<Context>;
  const peer = createPeerBot(bench.redis, tg, built.api) as unknown as Bot<Context>;
  // The peer asks for the bank by name only (no shortcut buttons after the country): that one check is ours alone.
  const peerSteps = steps.map((step) =>
    step.name === "Nigeria" ? { name: step.name, action: step.action } : step,
  );

  const phase = (
    target: Bot<Context>,
    options: Omit<PhaseOptions, "steps"> & { steps?: PhaseOptions["steps"] },
  ) =>
    measurePhase(
      (update) => (target === bot ? ours.handle(update) : target.handleUpdate(update)),
      tg,
      bench.snapshot,
      { ...options, steps: options.steps ?? steps },
    );

  progress(`"${journey.name}": warm-up (${WARMUP} users each), ${SERIAL} alone in turns, ${USERS} at once`);
  await phase(bot, { users: WARMUP, firstUserId: 1_000_000, concurrency: 10, scripted: true });
  await phase(peer, {
    users: WARMUP,
    firstUserId: 31_000_000,
    concurrency: 10,
    scripted: true,
    steps: peerSteps,
  });
  // The floor's code paths are few and hot quickly; a longer warm-up still matters for the JIT.
  await phase(floor, {
    users: Math.max(WARMUP, 300),
    firstUserId: 11_000_000,
    concurrency: 50,
    scripted: false,
  });
  const [oursAlone, peerAlone, floorAlone] = (await measureAlone(
    [
      { handle: (update) => ours.handle(update), steps, firstUserId: 2_000_000, scripted: true },
      {
        handle: (update) => peer.handleUpdate(update),
        steps: peerSteps,
        firstUserId: 32_000_000,
        scripted: true,
      },
      { handle: (update) => floor.handleUpdate(update), steps, firstUserId: 12_000_000, scripted: false },
    ],
    tg,
    bench.snapshot,
    { users: SERIAL, settleMs: 5 },
  )) as [Phase, Phase, Phase];
  // Commands per step: Redis's counters read around every update (three INFO round trips and their parsing per
  // read, kept out of the runs above).
  const oursCounted = await phase(bot, {
    users: COUNTED,
    firstUserId: 2_500_000,
    concurrency: 1,
    scripted: true,
    redisPerStep: true,
  });
  const peerCounted = await phase(peer, {
    users: COUNTED,
    firstUserId: 32_500_000,
    concurrency: 1,
    scripted: true,
    redisPerStep: true,
    steps: peerSteps,
  });
  const oursRun = await phase(bot, {
    users: USERS,
    firstUserId: 3_000_000,
    concurrency: CONCURRENCY,
    scripted: true,
  });
  progress("peer and floor: all at once");
  const peerRun = await phase(peer, {
    users: USERS,
    firstUserId: 33_000_000,
    concurrency: CONCURRENCY,
    scripted: true,
    steps: peerSteps,
  });
  const floorRun = await phase(floor, {
    users: USERS,
    firstUserId: 13_000_000,
    concurrency: CONCURRENCY,
    scripted: false,
  });

  let throttled: Awaited<ReturnType<typeof phase>> | undefined;
  if (THROTTLED_USERS > 0 && !THROTTLE) {
    progress(`production outbound policy (throttler on): ${THROTTLED_USERS} users at once`);
    const policyBot = createBot(built.deps, {
      token: BENCH_TOKEN,
      botInfo: BENCH_BOT,
      transformers: createTelegramTransformers(),
      features,
    }) as unknown as Bot<Context>;
    tg.attach(policyBot);
    throttled = await phase(policyBot, {
      users: THROTTLED_USERS,
      firstUserId: 21_000_000,
      concurrency: THROTTLED_USERS,
      scripted: true,
    });
  }

  const o = perUpdate(oursRun);
  const p = perUpdate(peerRun);
  const f = perUpdate(floorRun);
  const oa = perUpdate(oursAlone);
  const pa = perUpdate(peerAlone);
  const fa = perUpdate(floorAlone);
  const cpuRatio = o.cpuMsPerUpdate / f.cpuMsPerUpdate;
  const wallRatio = o.wallMsPerUpdate / f.wallMsPerUpdate;
  const peerCpuRatio = o.cpuMsPerUpdate / p.cpuMsPerUpdate;
  const aloneCpuFloor = oa.cpuMsPerUpdate / fa.cpuMsPerUpdate;
  const aloneCpuPeer = oa.cpuMsPerUpdate / pa.cpuMsPerUpdate;
  const failures = [...oursAlone.run.failures, ...oursRun.run.failures, ...(throttled?.run.failures ?? [])];
  const peerFailures = [...peerAlone.run.failures, ...peerRun.run.failures];
  const checks = [
    check(
      "Journeys completed",
      `${USERS}/${USERS}`,
      `${oursRun.run.completedJourneys}/${USERS}`,
      failures.length === 0,
    ),
    check("Errors logged by the bot", "0", String(built.counter.errors), built.counter.errors === 0),
    check(
      "Throughput through full journeys (one core)",
      "≥ 1,000 updates/s",
      `${num(o.updatesPerSecond, 0)} updates/s`,
      o.updatesPerSecond >= 1000,
    ),
    check(
      "Peer journeys completed (the comparison is fair only if it did the same job)",
      `${USERS}/${USERS}`,
      `${peerRun.run.completedJourneys}/${USERS}`,
      peerFailures.length === 0,
    ),
    check("CPU per update vs peer, all at once", "≤ 1.0×", `${num(peerCpuRatio, 2)}×`, peerCpuRatio <= 1.0),
    check("CPU per update vs peer, one at a time", "≤ 1.0×", `${num(aloneCpuPeer, 2)}×`, aloneCpuPeer <= 1.0),
    check("CPU per update vs floor, all at once", "≤ 6×", `${num(cpuRatio, 1)}×`, cpuRatio <= 6),
    check("CPU per update vs floor, one at a time", "≤ 6×", `${num(aloneCpuFloor, 1)}×`, aloneCpuFloor <= 6),
    check("Wall time per update vs floor", "(none)", `${num(wallRatio, 1)}×`, true),
  ];

  const rows = stepRows(steps, oursAlone, oursCounted, oursRun);
  const peerRows = stepRows(peerSteps, peerAlone, peerCounted, peerRun);
  const lines = [
    runningCompiled
      ? "## Part 1–2 — Conversation throughput and the floor (production build)"
      : "## Part 1–2 — Conversation throughput and the floor",
    "",
    `Journey: **${journey.name}**, ${steps.length} updates per user. ${USERS} users at once (concurrency ${CONCURRENCY}), each waiting for the bot's answer before its next step. Real createBot with allFeatures, real Redis sessions and conversations, the sandbox over HTTP (${sandboxProcess.where === "in process" ? "in this process: its CPU counts as ours" : "in a child process, as the real API is elsewhere: CPU is the bot's alone"}), Telegram answered in-process at grammY's fetch. ${INBOX ? "Ours through the update inbox (record, per-chat lease, handle, acknowledge; calls recorded per update)" : "Ours fed to bot.handleUpdate directly (--inbox false)"}. Throttler ${THROTTLE ? "on" : "off"}; logs at \`${LOG_LEVEL}\`, counted not printed. The peer (\`bench/peer\`): the same journey as one @grammyjs/conversations v2 function with RedisAdapter storage, the same API client and qrcode, nothing else. The floor: grammY + sequentialize + the same RedisAdapter session + one reply per update. ${machineLine()}.`,
    ...(journey.full
      ? []
      : ["", "> ⚠️ The payout flow is not in allFeatures yet: this run measures the basic journey."]),
    "",
    comparison("All users at once", o, p, f, [
      [
        "Updates / wall time",
        `${oursRun.run.updates} / ${num(oursRun.run.wallMs / 1000, 1)} s`,
        `${peerRun.run.updates} / ${num(peerRun.run.wallMs / 1000, 1)} s`,
        `${floorRun.run.updates} / ${num(floorRun.run.wallMs / 1000, 1)} s`,
      ],
    ]),
    "",
    `With all users in flight and no think time, latency is queueing (Little's law: ${USERS} users in flight / throughput). One user at a time (${SERIAL} users each, ours, the peer and the floor taking turns user by user: no queueing, the cost of one update, and the machine's drift shared alike):`,
    "",
    comparison("One at a time", oa, pa, fa, []),
    "",
    `Per step (ours). Alone = one user at a time; loaded = all users at once; CPU is the whole process (${sandboxProcess.where === "in process" ? "bot + sandbox" : "the bot; the sandbox runs in a child process"})${throttled ? `; the last column: ${THROTTLED_USERS} users with the production outbound policy, createTelegramTransformers() defaults (throttler on)` : ""}.`,
    "",
    table(
      [
        "Step",
        "Alone p50",
        "Alone CPU",
        "Redis cmds",
        "Loaded p50",
        "Loaded p99",
        "Peer alone CPU",
        "Peer Redis cmds",
        ...(throttled ? ["Throttler on p50"] : []),
      ],
      rows.map((row, index) => [
        row.step,
        ms(row.aloneP50),
        ms(row.aloneCpuMs),
        num(row.redisCommands, 1),
        ms(row.loadedP50),
        ms(row.loadedP99),
        ms(peerRows[index]?.aloneCpuMs ?? 0),
        num(peerRows[index]?.redisCommands ?? 0, 1),
        ...(throttled ? [ms(summarize(throttled.run.byStep[row.step] ?? []).p50)] : []),
      ]),
    ),
    "",
    `Redis commands per update, all users at once (ours): ${Object.entries(oursRun.redis.calls)
      .slice(0, 10)
      .map(([name, count]) => `${name} ${num(count / Math.max(1, oursRun.run.updates), 2)}`)
      .join(", ")}.`,
    "",
    targetsTable(checks),
  ];
  if (failures.length > 0) {
    lines.push("", `Failed journeys: ${failures.length} (first 5):`, "");
    for (const failure of failures.slice(0, 5))
      lines.push(
        `- user ${failure.userId}, step "${failure.step}": ${failure.reason}; bot showed: ${failure.shown}`,
      );
  }
  if (peerFailures.length > 0) {
    lines.push("", `Failed peer journeys: ${peerFailures.length} (first 3):`, "");
    for (const failure of peerFailures.slice(0, 3))
      lines.push(
        `- user ${failure.userId}, step "${failure.step}": ${failure.reason}; bot showed: ${failure.shown}`,
      );
  }
  if (built.counter.samples.length > 0) {
    lines.push("", "Logged errors (first 3):", "", ...built.counter.samples.map((line) => `- \`${line}\``));
  }
  console.log(lines.join("\n"));

  const path = writeResults(runningCompiled ? "journey-compiled" : "journey", {
    mode: runningCompiled ? "compiled" : "tsx",
    settings: {
      users: USERS,
      concurrency: CONCURRENCY,
      warmup: WARMUP,
      serial: SERIAL,
      logLevel: LOG_LEVEL,
      sandbox: sandboxProcess.where,
      throttle: THROTTLE,
    },
    journey: { name: journey.name, full: journey.full, steps: steps.map((step) => step.name) },
    ours: { ...o, redisCalls: oursRun.redis.calls, failures: failures.length },
    peer: { ...p, redisCalls: peerRun.redis.calls, failures: peerFailures.length },
    floor: { ...f, redisCalls: floorRun.redis.calls },
    alone: { ours: oa, peer: pa, floor: fa },
    perStep: rows,
    peerPerStep: peerRows,
    throttledPerStep: throttled
      ? Object.fromEntries(steps.map((step) => [step.name, summarize(throttled.run.byStep[step.name] ?? [])]))
      : undefined,
    ratios: {
      cpu: cpuRatio,
      wall: wallRatio,
      cpuVsPeer: peerCpuRatio,
      aloneCpuVsPeer: aloneCpuPeer,
      aloneCpuVsFloor: aloneCpuFloor,
      wallVsPeer: o.wallMsPerUpdate / p.wallMsPerUpdate,
    },
    logs: built.counter,
    telegramCalls: Object.fromEntries(tg.calls),
    targets: checks,
    durationSeconds: (Date.now() - started) / 1000,
  });
  progress(`journey: results in ${path}`);

  await ours.stop();
  await built.api.close();
  await sandboxProcess.stop();
  await bench.stop();
}

function comparison(
  title: string,
  ours: PerUpdate,
  peer: PerUpdate,
  floor: PerUpdate,
  extra: string[][],
): string {
  const row = (label: string, pick: (x: PerUpdate) => number, unit: string, decimals: number) => {
    const [a, b, c] = [pick(ours), pick(peer), pick(floor)];
    return [
      label,
      `${num(a, decimals)}${unit}`,
      `${num(b, decimals)}${unit}`,
      `${num(c, decimals)}${unit}`,
      `${num(a / b, 2)}×`,
      `${num(a / c, 1)}×`,
    ];
  };
  return table(
    [title, "Ours", "Peer", "Floor", "Ours / peer", "Ours / floor"],
    [
      row("Updates/s", (x) => x.updatesPerSecond, "", 0),
      row("Wall time per update (1 / throughput)", (x) => x.wallMsPerUpdate, " ms", 3),
      row("CPU per update (this process)", (x) => x.cpuMsPerUpdate, " ms", 3),
      row("Latency p50", (x) => x.latency.p50, " ms", 2),
      row("Latency p95", (x) => x.latency.p95, " ms", 2),
      row("Latency p99", (x) => x.latency.p99, " ms", 2),
      row("Redis commands per update", (x) => x.redisCommandsPerUpdate, "", 1),
      row("redis-server CPU per update", (x) => x.redisCpuMsPerUpdate, " ms", 3),
      row("Telegram calls per update", (x) => x.telegramCallsPerUpdate, "", 2),
      ...extra.map((cells) => [...cells, "", ""]),
    ],
  );
}

runPart("journey", COMPILED, main);
