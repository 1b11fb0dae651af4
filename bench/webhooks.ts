import { boolOption, intOption, stringOption } from "./lib/args.ts";
import { runningCompiled, runPart } from "./lib/compiled.ts";
import { startBenchRedis } from "./lib/redis.ts";
import {
  check,
  machineLine,
  ms,
  num,
  progress,
  type TargetCheck,
  table,
  targetsTable,
  writeResults,
} from "./lib/report.ts";
import { roundTripCpuMicros } from "./lib/round-trip.ts";
import { startBenchSandbox } from "./lib/sandbox.ts";
import { runScenario, type ScenarioResult } from "./webhooks/scenario.ts";

/**
 * Part 3: webhook ingestion. Signed events posted to the real HTTP server's /webhooks/payout at a fixed rate, the
 * events pipeline delivering to the Telegram emulator (own process), with Telegram's limits off, then on (emulator
 * flood limits + the bot's throttler), the latter scaled down because 30 messages/s makes 10,000 events take
 * minutes.
 *
 *   npm run bench:webhooks -- [--events 10000] [--warmup-events 2000] [--rate 500] [--connections 64]
 *     [--limited-events 1000] [--receiver-events 4000] [--compiled] [--cpu-profile <dir>]
 *
 * The web-process run is what a PROCESS_ROLE=web process does on its own (no queue workers behind it).
 */
const EVENTS = intOption("events", "BENCH_WEBHOOK_EVENTS", 10_000);
/** Events of other orders delivered before the limits-off run's measured window (0: measure from a cold start). */
const WARMUP_EVENTS = intOption("warmup-events", "BENCH_WEBHOOK_WARMUP_EVENTS", 2_000);
const RATE = intOption("rate", "BENCH_WEBHOOK_RATE", 500);
const CONNECTIONS = intOption("connections", "BENCH_WEBHOOK_CONNECTIONS", 64);
const LIMITED_EVENTS = intOption("limited-events", "BENCH_WEBHOOK_LIMITED_EVENTS", 1_000);
/** A short extra run with the queue workers stopped (PROCESS_ROLE=web): it applies and delivers by itself. */
const RECEIVER_EVENTS = intOption("receiver-events", "BENCH_WEBHOOK_RECEIVER_EVENTS", 4_000);
/** A run of events posted one at a time under MONITOR, for Redis commands per event by stage (receive, ingest, deliver). */
const STAGED_EVENTS = intOption("staged-events", "BENCH_WEBHOOK_STAGED_EVENTS", 400);
/** Run the production build (tsc → plain node, no tsx) instead of the TypeScript sources through tsx. */
const COMPILED = boolOption("compiled", "BENCH_WEBHOOK_COMPILED", false);
/** A directory: write a CPU profile of each scenario's measured window there. */
const CPU_PROFILE_DIR = stringOption("cpu-profile", "BENCH_WEBHOOK_CPU_PROFILE", "") || undefined;

async function main(): Promise<void> {
  const started = Date.now();
  const redis = await startBenchRedis();
  const roundTripMicros = await roundTripCpuMicros(redis.server.url);
  const sandbox = await startBenchSandbox();
  const results: ScenarioResult[] = [];
  try {
    if (EVENTS > 0)
      results.push(
        await runScenario({
          label: "Telegram limits off",
          events: EVENTS,
          warmupEvents: WARMUP_EVENTS,
          ratePerSecond: RATE,
          connections: CONNECTIONS,
          limits: false,
          redis,
          sandbox,
          deliveryTimeoutMs: 240_000,
          cpuProfileDir: CPU_PROFILE_DIR,
        }),
      );
    if (LIMITED_EVENTS > 0) {
      results.push(
        await runScenario({
          label: "Telegram limits on",
          events: LIMITED_EVENTS,
          ratePerSecond: RATE,
          connections: CONNECTIONS,
          limits: true,
          redis,
          sandbox,
          deliveryTimeoutMs: 240_000,
          cpuProfileDir: CPU_PROFILE_DIR,
        }),
      );
    }
    if (RECEIVER_EVENTS > 0) {
      results.push(
        await runScenario({
          label: "Web process alone (PROCESS_ROLE=web)",
          events: RECEIVER_EVENTS,
          ratePerSecond: RATE,
          connections: CONNECTIONS,
          limits: false,
          workers: false,
          redis,
          sandbox,
          deliveryTimeoutMs: 0,
          cpuProfileDir: CPU_PROFILE_DIR,
        }),
      );
    }
    if (STAGED_EVENTS > 0) {
      results.push(
        await runScenario({
          label: "Stage by stage (one event at a time)",
          events: STAGED_EVENTS,
          ratePerSecond: RATE,
          connections: CONNECTIONS,
          limits: false,
          staged: true,
          redis,
          sandbox,
          deliveryTimeoutMs: 240_000,
        }),
      );
    }
  } finally {
    await sandbox.close();
    await redis.stop();
  }

  const column = (pick: (result: ScenarioResult) => string) => results.map(pick);
  const checks: TargetCheck[] = [];
  for (const result of results) {
    const suffix = ` (${result.label.toLowerCase()})`;
    if (!result.staged)
      checks.push(
        check(`Ack p99 at ${RATE} req/s${suffix}`, "< 10 ms", ms(result.ack.p99), result.ack.p99 < 10),
      );
    if (!result.staged && !result.limits) {
      checks.push(
        check(
          `Webhook → card edit p99 at ${RATE} events/s${suffix}`,
          "≤ 100 ms",
          ms(result.toCardEdit.p99),
          result.toCardEdit.p99 <= 100,
        ),
        check(
          `Redis commands per event, end to end${suffix}`,
          "≤ 25",
          num(result.redisPerEvent, 3),
          result.redisPerEvent <= 25,
        ),
        check(
          `Bot CPU per event, end to end${suffix}`,
          "≤ 0.8 ms",
          ms(result.cpuMsPerEvent),
          result.cpuMsPerEvent <= 0.8,
        ),
      );
    }
    checks.push(
      check(`Lost notifications${suffix}`, "0", String(result.lost), result.lost === 0),
      check(`Duplicate notifications${suffix}`, "0", String(result.duplicates), result.duplicates === 0),
    );
  }
  const limitedNote =
    LIMITED_EVENTS > 0 && LIMITED_EVENTS < EVENTS
      ? ` With limits on the run is scaled down to ${num(LIMITED_EVENTS, 0)} events: Telegram's ~30 messages/s makes ${num(EVENTS, 0)} events (≈ ${num(EVENTS * 1.5, 0)} messages) take minutes.`
      : "";
  const lines = [
    runningCompiled ? "## Part 3 — Webhook ingestion (production build)" : "## Part 3 — Webhook ingestion",
    "",
    `Signed events (hex HMAC-SHA256 in X-Mavapay-Signature) POSTed to the real HTTP server's /webhooks/payout → createEventsPipeline (BullMQ on a private redis-server) → the Telegram emulator over HTTP in its own process; the sender is a separate process too (open loop at ${RATE} req/s, up to ${CONNECTIONS} connections). Each of the N/2 orders is a confirmed NGN payout whose status card was already sent; its payment.received and then payment.sent each notify the user once.${limitedNote} ${machineLine()}. One Redis round trip costs ${num(roundTripMicros, 1)} µs of CPU in the calling process on this machine (ioredis GETs one after another); times the commands the bot sends per event (the stage-by-stage table), it is what the event's Redis round trips cost of its CPU.`,
    "",
    table(
      ["", ...column((result) => result.label)],
      [
        ["Events (orders)", ...column((r) => `${num(r.events, 0)} (${num(r.orders, 0)})`)],
        [
          "Delivered before the measured window (warm-up, other orders)",
          ...column((r) => (r.warmupEvents > 0 ? `${num(r.warmupEvents, 0)} events` : "none (cold start)")),
        ],
        [
          "Answers",
          ...column((r) =>
            Object.entries(r.statuses)
              .map(([k, v]) => `${k}: ${v}`)
              .join(", "),
          ),
        ],
        ["Ack latency p50", ...column((r) => ms(r.ack.p50))],
        ["Ack latency p95", ...column((r) => ms(r.ack.p95))],
        ["Ack latency p99", ...column((r) => ms(r.ack.p99))],
        ["Ack latency max", ...column((r) => ms(r.ack.max))],
        [
          "In the bot's process p50 / p99 / max",
          ...column((r) => `${ms(r.server.p50)} / ${ms(r.server.p99)} / ${ms(r.server.max)}`),
        ],
        ["Accepted/s (posting phase)", ...column((r) => num(r.acceptedPerSecond, 0))],
        ["Sender lag behind schedule p99", ...column((r) => ms(r.lagP99Ms))],
        ["Event loop busy while posting", ...column((r) => `${num(r.eventLoopUtilization * 100, 0)}%`)],
        [
          "Event-loop delay p99 / max while posting",
          ...column((r) => `${ms(r.loopDelay.p99)} / ${ms(r.loopDelay.max)}`),
        ],
        [
          "GC while posting: total / longest pause",
          ...column((r) => `${ms(r.gc.totalMs)} / ${ms(r.gc.maxMs)}`),
        ],
        [
          "GC pauses by kind: count, longest",
          ...column((r) =>
            Object.entries(r.gc.byKind)
              .map(([kind, k]) => `${kind} ${k.count}, ${ms(k.maxMs)}`)
              .join("; "),
          ),
        ],
        [
          "Time until every notification reached Telegram",
          ...column((r) =>
            r.deliverySeconds === undefined ? "not all arrived" : `${num(r.deliverySeconds, 1)} s`,
          ),
        ],
        ["Notifications delivered / expected", ...column((r) => `${r.notifications} / ${r.orders * 2}`)],
        ["Status card edits", ...column((r) => String(r.cardEdits))],
        [
          "Webhook POSTed → card edited at Telegram p50 / p99",
          ...column((r) => (!r.staged ? `${ms(r.toCardEdit.p50)} / ${ms(r.toCardEdit.p99)}` : "—")),
        ],
        [
          "Webhook POSTed → card edit and notification both there p50 / p99",
          ...column((r) => (!r.staged ? `${ms(r.toBoth.p50)} / ${ms(r.toBoth.p99)}` : "—")),
        ],
        ["Lost / duplicated", ...column((r) => `${r.lost} / ${r.duplicates}`)],
        ["429 answers from Telegram", ...column((r) => String(r.tooManyRequests))],
        ["Dead letters", ...column((r) => String(r.deadLetters))],
        [
          "Bot process CPU per event",
          ...column(
            (r) =>
              `${ms(r.cpuMsPerEvent)} (ack + ingest + delivery; ${ms(r.systemCpuMsPerEvent)} of it in the kernel)`,
          ),
        ],
        [
          "  by thread (from /proc: the main thread; V8Worker = GC and the optimizing compiler)",
          ...column(
            (r) =>
              Object.entries(r.threadCpuMsPerEvent)
                .sort(([, a], [, b]) => b - a)
                .map(([name, perEvent]) => `${name} ${ms(perEvent)}`)
                .join(", ") || "n/a",
          ),
        ],
        [
          "Redis commands per event, the background left out",
          ...column(
            (r) =>
              `${num(r.redisPerEvent, 3)} (${Object.entries(r.redisTop)
                .slice(0, 4)
                .map(([name, count]) => `${name} ${num(count, 1)}`)
                .join(", ")})`,
          ),
        ],
        [
          "Redis commands per event with the background left in (background rate)",
          ...column(
            (r) =>
              `${num(r.redisPerEventWithBackground, 2)} (${num(r.redisBackgroundPerSecond, 1)} commands/s)`,
          ),
        ],
        ["redis-server CPU per event", ...column((r) => ms(r.redisCpuMsPerEvent))],
        ["Errors logged", ...column((r) => String(r.logs.errors))],
      ],
    ),
    ...results
      .filter((result) => result.stages)
      .flatMap((result) => [
        "",
        `Redis commands per event by stage (${result.label}, from a MONITOR trace; Lua scripts' own commands included, as Redis counts them; BullMQ's housekeeping and the sweeps left out):`,
        "",
        table(
          ["Stage", "Commands per event", "Sent by the bot (round trips)", "Top commands"],
          (result.stages ?? []).map((stage) => [
            stage.stage,
            num(stage.perEvent, 1),
            num(stage.sentPerEvent, 1),
            Object.entries(stage.top)
              .map(([name, count]) => `${name} ${num(count, 1)}`)
              .join(", "),
          ]),
        ),
      ]),
    "",
    targetsTable(checks),
  ];
  for (const result of results) {
    if (result.logs.samples.length > 0)
      lines.push(
        "",
        `Logged errors (${result.label}):`,
        "",
        ...result.logs.samples.map((line) => `- \`${line}\``),
      );
  }
  console.log(lines.join("\n"));
  const path = writeResults(runningCompiled ? "webhooks-compiled" : "webhooks", {
    mode: runningCompiled ? "compiled" : "tsx",
    settings: {
      events: EVENTS,
      warmupEvents: WARMUP_EVENTS,
      rate: RATE,
      connections: CONNECTIONS,
      limitedEvents: LIMITED_EVENTS,
    },
    roundTripCpuMicros: roundTripMicros,
    scenarios: results,
    targets: checks,
    durationSeconds: (Date.now() - started) / 1000,
  });
  progress(`webhooks: results in ${path}`);
}

runPart("webhooks", COMPILED, main);
