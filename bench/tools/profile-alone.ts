import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import type { Update } from "grammy/types";
import { allFeatures } from "#src/bot/features.js";
import { intOption, stringOption } from "../lib/args.ts";
import { buildBotDeps } from "../lib/bot-deps.ts";
import { chooseJourney } from "../lib/journeys.ts";
import { LocalTelegram } from "../lib/local-telegram.ts";
import { startOurBot } from "../lib/our-bot.ts";
import { type AloneContender, measureAlone } from "../lib/phases.ts";
import { startBenchRedis } from "../lib/redis.ts";
import { runJourneys } from "../lib/runner.ts";
import { startSandboxProcess } from "../lib/sandbox-process.ts";
import { createPeerBot } from "../peer/peer-bot.ts";

/**
 * A profile of one bot alone, one user at a time (bench:journey's one-at-a-time phase for ours through the update
 * inbox, or the peer), of the measured window only: where one update's CPU goes (`--kind cpu`, for
 * cpuprofile-summary.ts) or what it allocates, garbage included (`--kind heap`: a sampling heap profile that
 * keeps the objects collected since, summed by function and printed).
 *
 * With `--step <name>` only that step's updates are profiled, each on its own (cpu: self time by function per
 * update; heap: bytes per update by function; `--step all` with heap: bytes per update of every step).
 *
 *   node --expose-gc --import tsx bench/tools/profile-alone.ts [--bot ours|peer] [--kind cpu|heap] [--users 300]
 *     [--step "amount"|all] [--out /tmp/alone-ours.cpuprofile]
 */
const USERS = intOption("users", "BENCH_USERS", 300);
const BOT = stringOption("bot", "BENCH_PROFILE_BOT", "ours");
const KIND = stringOption("kind", "BENCH_PROFILE_KIND", "cpu");
const OUT = stringOption("out", "BENCH_PROFILE_OUT", `/tmp/alone-${BOT}.${KIND}profile`);
/** Profile only the updates of this step (or, with heap, `all`: each step apart). */
const STEP = stringOption("step", "BENCH_PROFILE_STEP", "");

const bench = await startBenchRedis();
const sandbox = await startSandboxProcess();
const tg = new LocalTelegram();
const built = await buildBotDeps({
  redis: bench.redis,
  sandbox: sandbox.address,
  logLevel: "info",
  throttle: false,
});
const features = allFeatures(built.deps);
const { steps } = chooseJourney(features);
const ours = await startOurBot({ redis: bench.redis, tg, built, features, concurrency: 1, inbox: true });
const peer = createPeerBot(bench.redis, tg, built.api);
const peerSteps = steps.map((step) =>
  step.name === "Nigeria" ? { name: step.name, action: step.action } : step,
);
/** Every allocation sampled about every 4 KB, the objects collected since included (what the GC had to deal with). */
const HEAP_SAMPLING = {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
};
const contender = (firstUserId: number): AloneContender[] => [
  BOT === "peer"
    ? { handle: (update: Update) => peer.handleUpdate(update), steps: peerSteps, firstUserId, scripted: true }
    : { handle: (update: Update) => ours.handle(update), steps, firstUserId, scripted: true },
];
await measureAlone(contender(1_000_000), tg, bench.snapshot, { users: 100, settleMs: 5 });
const session = new Session();
session.connect();
if (KIND === "cpu") {
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: STEP ? 50 : 100 });
}
if (STEP) await profileStep(session, contender(3_000_000)[0]!);
else await profileRun(session);
await ours.stop();
await sandbox.stop();
await bench.stop();
process.exit(0);

/** The whole one-at-a-time run in one profile, written to OUT (heap: also printed by function). */
async function profileRun(session: Session): Promise<void> {
  if (KIND === "heap") await session.post("HeapProfiler.startSampling", HEAP_SAMPLING);
  else await session.post("Profiler.start");
  const [phase] = await measureAlone(contender(2_000_000), tg, bench.snapshot, { users: USERS, settleMs: 5 });
  const run = phase!.run;
  const { profile } =
    KIND === "heap" ? await session.post("HeapProfiler.stopSampling") : await session.post("Profiler.stop");
  writeFileSync(OUT, JSON.stringify(profile));
  if (KIND === "heap") printAllocations([(profile as { head: HeapNode }).head], run.updates);
  console.log(
    `${BOT}: ${run.updates} updates, ${((run.cpuUserMs + run.cpuSystemMs) / run.updates).toFixed(3)} ms CPU per update (profiled), ${run.completedJourneys}/${USERS} journeys; ${KIND} profile in ${OUT}`,
  );
}

/** "name path:line", paths from node_modules/, src/ or bench/ on (as cpuprofile-summary.ts prints them). */
function frameLabel(frame: { functionName: string; url: string; lineNumber: number }): string {
  return `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\/(node_modules|src|bench)\//, "$1/")}:${frame.lineNumber + 1}`;
}

interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/**
 * Only the updates of STEP, each profiled on its own (started and stopped outside it): `--kind cpu` sums self time
 * by function; `--kind heap` gives the bytes each update of the step allocated, garbage included (`--step all`:
 * every step, side by side).
 */
async function profileStep(session: Session, bot: AloneContender): Promise<void> {
  const selfMs = new Map<string, number>();
  const bytesByStep = new Map<string, number[]>();
  const heads: HeapNode[] = [];
  let updates = 0;
  const wanted = (name: string) => STEP === "all" || name === STEP;
  await runJourneys({
    handle: bot.handle,
    tg,
    steps: bot.steps,
    users: USERS,
    firstUserId: 3_000_000,
    concurrency: 1,
    scripted: bot.scripted,
    beforeStep: async (_user, step) => {
      if (!wanted(step.name)) return;
      if (KIND === "heap") await session.post("HeapProfiler.startSampling", HEAP_SAMPLING);
      else await session.post("Profiler.start");
    },
    afterStep: async (_user, step) => {
      if (!wanted(step.name)) return;
      // The acknowledgement and what else the update does after its answer.
      await new Promise((resolve) => setTimeout(resolve, 5));
      updates += 1;
      if (KIND === "heap") {
        const { profile } = await session.post("HeapProfiler.stopSampling");
        const list = bytesByStep.get(step.name) ?? [];
        list.push(sumSelf(profile.head as HeapNode));
        if (STEP !== "all") heads.push(profile.head as HeapNode);
        bytesByStep.set(step.name, list);
        return;
      }
      const { profile } = await session.post("Profiler.stop");
      const byId = new Map((profile.nodes as CpuNode[]).map((node) => [node.id, node]));
      profile.samples?.forEach((id, index) => {
        const frame = byId.get(id)?.callFrame;
        if (!frame || frame.functionName === "(idle)" || frame.url.startsWith("node:inspector")) return;
        const label = frameLabel(frame);
        selfMs.set(label, (selfMs.get(label) ?? 0) + (profile.timeDeltas?.[index] ?? 0) / 1000);
      });
    },
  });
  if (KIND === "heap") {
    console.log(
      `${BOT}: bytes allocated per update, by step (${USERS} users)\n\n| Step | KB |\n| --- | --- |`,
    );
    let all = 0;
    for (const [name, list] of bytesByStep) {
      const total = list.reduce((sum, value) => sum + value, 0);
      all += total;
      console.log(`| ${name} | ${(total / list.length / 1024).toFixed(1)} |`);
    }
    console.log(`| per update | ${(all / updates / 1024).toFixed(1)} |\n`);
    if (heads.length > 0) printAllocations(heads, updates);
  } else {
    const total = [...selfMs.values()].reduce((sum, value) => sum + value, 0);
    console.log(
      `Step "${STEP}": ${(total / updates).toFixed(3)} ms sampled per update, the profiler's own left out (${updates} updates)\n`,
    );
    for (const [label, time] of [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, 60))
      console.log(`${((1000 * time) / updates).toFixed(0).padStart(5)} µs  ${label}`);
  }
}

function sumSelf(node: HeapNode): number {
  return node.children.reduce((sum, child) => sum + sumSelf(child), node.selfSize);
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated per update, by package and by function (self). */
function printAllocations(heads: HeapNode[], updates: number): void {
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode) => {
    const { url } = node.callFrame;
    const group =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
      /\/(src|bench)\/[^/]+/.exec(url)?.[0] ??
      (url || "(native)");
    const label = frameLabel(node.callFrame);
    total += node.selfSize;
    byGroup.set(group, (byGroup.get(group) ?? 0) + node.selfSize);
    byFunction.set(label, (byFunction.get(label) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  for (const head of heads) walk(head);
  const kb = (bytes: number) => `${(bytes / updates / 1024).toFixed(1)} KB`;
  console.log(`Allocated per update: ${kb(total)}\n\n| By package / folder | per update |\n| --- | --- |`);
  for (const [name, bytes] of [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`| ${name} | ${kb(bytes)} |`);
  console.log("\n| By function | per update |\n| --- | --- |");
  for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`| ${name} | ${kb(bytes)} |`);
}
