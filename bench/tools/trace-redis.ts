import type { Bot, Context } from "grammy";
import { createBot } from "#src/bot/create-bot.js";
import { allFeatures } from "#src/bot/features.js";
import { buildBotDeps } from "../lib/bot-deps.ts";
import { chooseJourney } from "../lib/journeys.ts";
import { BENCH_BOT, BENCH_TOKEN, LocalTelegram } from "../lib/local-telegram.ts";
import { startBenchRedis } from "../lib/redis.ts";
import { runJourneys } from "../lib/runner.ts";
import { startBenchSandbox } from "../lib/sandbox.ts";

/**
 * Every Redis command one user's journey sends, step by step (Redis MONITOR on a private server): what each
 * update reads and writes, for the report's "what costs what".
 *
 *   node --import tsx bench/tools/trace-redis.ts
 */
const bench = await startBenchRedis();
const sandbox = await startBenchSandbox();
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
// One journey first so caches (bank list, minimums) are warm, as in steady state.
await runJourneys({
  handle: (u) => bot.handleUpdate(u),
  tg,
  steps: journey.steps,
  users: 1,
  firstUserId: 1,
  scripted: true,
});

const monitor = bench.probe.duplicate();
const lines: string[] = [];
const stream = await monitor.monitor();
stream.on("monitor", (_time: string, args: string[]) => {
  const [command, key, ...rest] = args;
  const size = rest.reduce((total, arg) => total + arg.length, 0);
  lines.push(`${command} ${key ?? ""}${size > 0 ? ` (+${size} bytes)` : ""}`);
});
await runJourneys({
  handle: (u) => bot.handleUpdate(u),
  tg,
  steps: journey.steps,
  users: 1,
  firstUserId: 2,
  scripted: true,
  beforeStep: async (_user, step) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    lines.push(`--- ${step.name}`);
  },
});
await new Promise((resolve) => setTimeout(resolve, 100));
console.log(lines.filter((line) => !/^(info|ping|monitor)/i.test(line)).join("\n"));
stream.disconnect();
monitor.disconnect();
await built.api.close();
await sandbox.close();
await bench.stop();
