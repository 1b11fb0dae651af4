import { allFeatures } from "#src/bot/features.js";
import { boolOption } from "../lib/args.ts";
import { buildBotDeps } from "../lib/bot-deps.ts";
import { chooseJourney } from "../lib/journeys.ts";
import { LocalTelegram } from "../lib/local-telegram.ts";
import { startOurBot } from "../lib/our-bot.ts";
import { startBenchRedis } from "../lib/redis.ts";
import { runJourneys } from "../lib/runner.ts";
import { startBenchSandbox } from "../lib/sandbox.ts";

/**
 * Every Redis command one user's journey sends, step by step (Redis MONITOR on a private server): what each
 * update reads and writes, for the report's "what costs what". Through the update inbox as production runs it
 * (record and lease, handle, acknowledge with the chat state; `--inbox false`: bot.handleUpdate alone). Commands
 * the bot sends itself are lower case (ioredis), those its Lua scripts run upper case; the last lines count the
 * former per step (the bot's round trips, but for a read sent in the same tick as another), then the bot's socket
 * writes to Redis per step (a pipeline leaves in one write; commands sent side by side, in one each).
 *
 *   node --import tsx bench/tools/trace-redis.ts [--inbox false]
 */
const bench = await startBenchRedis();
const sandbox = await startBenchSandbox();
const tg = new LocalTelegram();
const built = await buildBotDeps({ redis: bench.redis, sandbox, logLevel: "info" });
const features = allFeatures(built.deps);
const journey = chooseJourney(features);
const ours = await startOurBot({
  redis: bench.redis,
  tg,
  built,
  features,
  concurrency: 1,
  inbox: boolOption("inbox", "BENCH_INBOX", true),
});
// One journey first so caches (bank list, minimums) are warm, as in steady state.
await runJourneys({
  handle: (u) => ours.handle(u),
  tg,
  steps: journey.steps,
  users: 1,
  firstUserId: 1,
  scripted: true,
});

// The bot's socket writes to Redis per step: commands sent side by side leave in a write each, a pipeline's in one.
let writes = 0;
const socket = (bench.redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
const write = socket.write.bind(socket);
socket.write = (...args: unknown[]) => {
  writes += 1;
  return write(...args);
};
const writesPerStep: [string, number][] = [];

const monitor = bench.probe.duplicate();
const lines: string[] = [];
const stream = await monitor.monitor();
stream.on("monitor", (_time: string, args: string[]) => {
  const [command, key, ...rest] = args;
  const size = rest.reduce((total, arg) => total + arg.length, 0);
  lines.push(`${command} ${key ?? ""}${size > 0 ? ` (+${size} bytes)` : ""}`);
});
await runJourneys({
  handle: (u) => ours.handle(u),
  tg,
  steps: journey.steps,
  users: 1,
  firstUserId: 2,
  scripted: true,
  beforeStep: async (_user, step) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    lines.push(`--- ${step.name}`);
    writesPerStep.push([step.name, writes]);
  },
});
await new Promise((resolve) => setTimeout(resolve, 100));
const writesAfter = writes;
const traced = lines.filter((line) => !/^(info|ping|monitor)/i.test(line) && !/^\S+ process:/.test(line));
console.log(traced.join("\n"));
// Sent by the bot (lower case), per step; the heartbeat of the process registry is left out above.
const perStep: [string, number][] = [];
for (const line of traced) {
  if (line.startsWith("--- ")) perStep.push([line.slice(4), 0]);
  else if (/^[a-z]/.test(line) && perStep.length > 0) perStep[perStep.length - 1]![1] += 1;
}
const total = perStep.reduce((sum, [, count]) => sum + count, 0);
console.log(
  `\nsent by the bot: ${perStep.map(([step, count]) => `${step} ${count}`).join(", ")}; ${total} in all`,
);
const stepWrites = writesPerStep.map(([step, at], index) => [
  step,
  (writesPerStep[index + 1]?.[1] ?? writesAfter) - at,
]);
console.log(
  `socket writes to Redis: ${stepWrites.map(([step, count]) => `${step} ${count}`).join(", ")}; ${writesAfter - (writesPerStep[0]?.[1] ?? 0)} in all`,
);
stream.disconnect();
monitor.disconnect();
await ours.stop();
await built.api.close();
await sandbox.close();
await bench.stop();
