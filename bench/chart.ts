import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DailyBarsInput, renderDailyBars } from "#src/charts/daily-bars.js";
import { intOption } from "./lib/args.ts";
import {
  bytes,
  check,
  machineLine,
  ms,
  progress,
  RESULTS_DIR,
  summarize,
  table,
  targetsTable,
  writeResults,
} from "./lib/report.ts";

/**
 * `npm run bench:chart`: the /stats chart (14 days, four payout corridors and buys stacked, failures beside)
 * rendered again and again in this process — wall time per render (p50/p99), CPU per render and the PNG size.
 * Targets: under 50 ms and under 100 KB. Options: --renders N (default 200), --warmup N (default 20).
 *
 * The data is deterministic and busy (hundreds of orders a day, every series present), the worst case for size.
 */
const renders = intOption("renders", "BENCH_CHART_RENDERS", 200);
const warmup = intOption("warmup", "BENCH_CHART_WARMUP", 20);

function busyChart(): DailyBarsInput {
  let seed = 42;
  const next = (max: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % (max + 1);
  };
  const days = Array.from({ length: 14 }, (_, day) => `${day + 10}/11`);
  const series = ["NG payouts", "KE payouts", "ZA payouts", "GH payouts", "NG bitcoin buys"].map((label) => ({
    label,
    values: days.map(() => next(400)),
  }));
  return {
    title: "Orders per day, last 14 days",
    days,
    series,
    failed: { label: "failed", values: days.map(() => next(40)) },
    emptyLabel: "No completed or failed orders in these days.",
  };
}

const input = busyChart();
for (let i = 0; i < warmup; i += 1) await renderDailyBars(input);
progress(`rendering ${renders} charts`);
const times: number[] = [];
let png: Buffer = Buffer.alloc(0);
const cpuStart = process.cpuUsage();
for (let i = 0; i < renders; i += 1) {
  const started = performance.now();
  png = await renderDailyBars(input);
  times.push(performance.now() - started);
}
const cpu = process.cpuUsage(cpuStart);
const cpuPerRender = (cpu.user + cpu.system) / 1000 / renders;
const summary = summarize(times);
writeFileSync(join(RESULTS_DIR, "chart.png"), png);
writeResults("chart", { renders, summary, cpuPerRenderMs: cpuPerRender, pngBytes: png.length });

process.stdout.write(
  [
    "## Chart rendering (bench/chart.ts)",
    "",
    machineLine(),
    "",
    table(
      ["Renders", "p50", "p99", "max", "CPU per render", "PNG size"],
      [[renders, ms(summary.p50), ms(summary.p99), ms(summary.max), ms(cpuPerRender), bytes(png.length)]],
    ),
    "",
    targetsTable([
      check("Render time p99", "< 50 ms", ms(summary.p99), summary.p99 < 50),
      check("PNG size", "< 100 KB", bytes(png.length), png.length < 100 * 1024),
    ]),
    "",
    `The last chart is in ${join(RESULTS_DIR, "chart.png")}.`,
    "",
  ].join("\n"),
);
