import { allFeatures } from "#src/bot/features.js";
import { createTelegramTransformers } from "#src/bot/telegram-transformers.js";
import { boolOption, intOption, stringOption } from "./lib/args.ts";
import { buildBotDeps } from "./lib/bot-deps.ts";
import { chooseJourney } from "./lib/journeys.ts";
import { LocalTelegram } from "./lib/local-telegram.ts";
import { startOurBot } from "./lib/our-bot.ts";
import { startBenchRedis } from "./lib/redis.ts";
import {
  check,
  type LatencySummary,
  machineLine,
  ms,
  num,
  progress,
  summarize,
  table,
  targetsTable,
  writeResults,
} from "./lib/report.ts";
import { buildUpdate, unmet } from "./lib/runner.ts";
import { startSandboxProcess } from "./lib/sandbox-process.ts";
import { SimUser } from "./lib/sim-user.ts";

/**
 * Open-loop reply latency: updates arrive at a fixed Poisson rate whatever the bot's pace (100, 300, 600
 * updates/s), each from a user whose previous answer has arrived (a new user starts the journey when every
 * walking user is still waiting). Latency is from the update handed to the process (recorded in the inbox) to the
 * local Telegram receiving the first message-bearing call for that chat (send or edit): what the user feels. For
 * updates answered with two or more messages, also to the last one. Ours runs as production does: the update
 * inbox and the production outbound policy (createTelegramTransformers: throttler, auto-retry).
 *
 *   npm run bench:latency -- [--rates 100,300,600] [--seconds 8] [--throttle true] [--inbox-concurrency 32]
 *     [--drain-seconds 20]
 */
const RATES = stringOption("rates", "BENCH_RATES", "100,300,600")
  .split(",")
  .map((rate) => Number(rate.trim()))
  .filter((rate) => rate > 0);
const SECONDS = intOption("seconds", "BENCH_SECONDS", 8);
const THROTTLE = boolOption("throttle", "BENCH_THROTTLE", true);
const CONCURRENCY = intOption("inbox-concurrency", "BENCH_INBOX_CONCURRENCY", 32);
/**
 * After the arrivals stop, wait this long for the answers. An overloaded rate may never catch up in reasonable time:
 * what is still unanswered then is counted as late (its latency is at least this much), not waited for.
 */
/** The outbound policy's global budget (messages/s; Telegram documents about 30 for bulk notifications). */
const GLOBAL_PER_SECOND = intOption("global-per-second", "BENCH_GLOBAL_PER_SECOND", 30);
const DRAIN_SECONDS = intOption("drain-seconds", "BENCH_DRAIN_SECONDS", 20);
const MESSAGES = new Set([
  "sendMessage",
  "sendPhoto",
  "sendDocument",
  "editMessageText",
  "editMessageCaption",
  "editMessageReplyMarkup",
]);

interface RateResult {
  rate: number;
  offered: number;
  handled: number;
  achievedPerSecond: number;
  cpuMsPerUpdate: number;
  first: LatencySummary;
  lastOfTwoOrMore: LatencySummary;
  handledIn: LatencySummary;
  unanswered: number;
  /** Still not handled DRAIN_SECONDS after the last arrival. */
  late: number;
  failures: number;
}

async function main(): Promise<void> {
  const bench = await startBenchRedis();
  const sandboxProcess = await startSandboxProcess({ inProcess: false });
  const tg = new LocalTelegram();
  const built = await buildBotDeps({ redis: bench.redis, sandbox: sandboxProcess.address, logLevel: "info" });
  const features = allFeatures(built.deps);
  const journey = chooseJourney(features);
  const ours = await startOurBot({
    redis: bench.redis,
    tg,
    built,
    features,
    concurrency: CONCURRENCY,
    inbox: true,
    transformers: createTelegramTransformers({
      throttle: THROTTLE,
      logger: built.deps.logger,
      pacing: { globalPerSecond: GLOBAL_PER_SECOND, globalBurst: GLOBAL_PER_SECOND },
    }),
  });

  /** Per chat, the update in flight: when it was sent and when its messages arrived. */
  const inFlight = new Map<number, { sentAt: number; messages: number[] }>();
  tg.onCall = (method, chatId) => {
    if (MESSAGES.has(method)) inFlight.get(chatId)?.messages.push(performance.now());
  };

  let nextUser = 40_000_000;
  const runRate = async (rate: number, seconds: number, record: boolean): Promise<RateResult> => {
    const idle: { user: SimUser; index: number; step: number }[] = [];
    const first: number[] = [];
    const last: number[] = [];
    const handledIn: number[] = [];
    let offered = 0;
    let handled = 0;
    let failures = 0;
    const pending: Promise<void>[] = [];
    const send = async (walker: { user: SimUser; index: number; step: number }) => {
      const step = journey.steps[walker.step];
      if (!step) return;
      const built = buildUpdate(walker.user, walker.index, step, true, tg);
      if ("failure" in built) {
        failures += 1;
        return;
      }
      tg.takeTouched(walker.user.id);
      const slot = { sentAt: performance.now(), messages: [] as number[] };
      inFlight.set(walker.user.id, slot);
      await ours.handle(built.update);
      const done = performance.now();
      inFlight.delete(walker.user.id);
      handled += 1;
      if (record) {
        handledIn.push(done - slot.sentAt);
        const [head] = slot.messages;
        if (head !== undefined) first.push(head - slot.sentAt);
        if (slot.messages.length >= 2) last.push((slot.messages.at(-1) ?? done) - slot.sentAt);
      }
      if (step.expect && unmet(step.expect, tg.takeTouched(walker.user.id))) {
        failures += 1;
        return;
      }
      walker.step += 1;
      if (walker.step < journey.steps.length) idle.push(walker);
      else tg.forget(walker.user.id);
    };
    const cpu = process.cpuUsage();
    const started = performance.now();
    const end = started + seconds * 1000;
    let due = started;
    while (due < end) {
      // Exponential gaps: a Poisson process of `rate` arrivals per second.
      due += (-Math.log(1 - Math.random()) * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      offered += 1;
      const walker = idle.shift() ?? { user: new SimUser(nextUser, tg), index: nextUser++, step: 0 };
      pending.push(send(walker));
    }
    let drained = false;
    await Promise.race([
      Promise.all(pending).then(() => {
        drained = true;
      }),
      new Promise((resolve) => setTimeout(resolve, DRAIN_SECONDS * 1000).unref()),
    ]);
    const wall = performance.now() - started;
    const late = drained ? 0 : offered - handled - failures;
    const used = process.cpuUsage(cpu);
    for (const walker of idle) tg.forget(walker.user.id);
    return {
      rate,
      offered,
      handled,
      achievedPerSecond: handled / (wall / 1000),
      cpuMsPerUpdate: (used.user + used.system) / 1000 / Math.max(1, handled),
      first: summarize(first),
      lastOfTwoOrMore: summarize(last),
      handledIn: summarize(handledIn),
      unanswered: handled - first.length,
      late,
      failures,
    };
  };

  progress(`latency: warm-up, then ${RATES.join(", ")} updates/s for ${SECONDS} s each`);
  await runRate(100, 3, false);
  const results: RateResult[] = [];
  for (const rate of RATES) {
    globalThis.gc?.();
    progress(`latency: ${rate} updates/s`);
    results.push(await runRate(rate, SECONDS, true));
  }

  const at300 = results.find((result) => result.rate === 300);
  const lateAt300 = at300 !== undefined && at300.late > 0;
  const checks = at300
    ? [
        check(
          "Reply latency p99 at 300 updates/s",
          "≤ 50 ms",
          lateAt300 ? `> ${DRAIN_SECONDS} s (${at300.late} late)` : ms(at300.first.p99),
          !lateAt300 && at300.first.p99 <= 50,
        ),
        check(
          "Two-message reply, last message p99 at 300 updates/s",
          "≤ 100 ms",
          ms(at300.lastOfTwoOrMore.p99),
          !lateAt300 && at300.lastOfTwoOrMore.count > 0 && at300.lastOfTwoOrMore.p99 <= 100,
        ),
      ]
    : [];
  const lines = [
    "## Open-loop reply latency",
    "",
    `Journey **${journey.name}**; updates arrive at a fixed Poisson rate for ${SECONDS} s per rate, each from a user whose previous answer has arrived. Ours through the update inbox (concurrency ${CONCURRENCY}) with the production outbound policy (throttler ${THROTTLE ? `on, global budget ${GLOBAL_PER_SECOND}/s` : "off"}); Telegram answered in-process. Latency: update recorded → first message (send or edit) for that chat at Telegram; "last" is the last message of updates answered with two or more. ${machineLine()}.`,
    "",
    table(
      [
        "Offered",
        "Handled/s",
        "CPU / update",
        "First reply p50",
        "p99",
        "Last of ≥2 p50",
        "p99",
        "(n)",
        "Handled p99",
        `Late (> ${DRAIN_SECONDS} s)`,
        "Failures",
      ],
      results.map((result) => [
        `${result.rate}/s`,
        num(result.achievedPerSecond, 0),
        ms(result.cpuMsPerUpdate),
        ms(result.first.p50),
        ms(result.first.p99),
        ms(result.lastOfTwoOrMore.p50),
        ms(result.lastOfTwoOrMore.p99),
        result.lastOfTwoOrMore.count,
        ms(result.handledIn.p99),
        result.late,
        result.failures,
      ]),
    ),
    "",
    targetsTable(checks),
  ];
  console.log(lines.join("\n"));
  const path = writeResults("latency", {
    settings: {
      rates: RATES,
      seconds: SECONDS,
      throttle: THROTTLE,
      concurrency: CONCURRENCY,
      globalPerSecond: GLOBAL_PER_SECOND,
    },
    results,
    targets: checks,
    logs: built.counter,
  });
  progress(`latency: results in ${path}`);
  // Late updates of an overloaded rate may still be queued: the stop does not wait for them.
  await ours.stop(1_000);
  await built.api.close();
  await sandboxProcess.stop();
  await bench.stop();
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
