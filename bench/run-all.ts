import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringOption } from "./lib/args.ts";
import {
  machineLine,
  num,
  progress,
  RESULTS_DIR,
  type TargetCheck,
  table,
  writeResults,
} from "./lib/report.ts";

/**
 * `npm run bench`: every part in its own fresh Node process (node --expose-gc --import tsx), one after the other,
 * so one part's heap, JIT state and Redis never colour the next. Each part prints its markdown to stdout and
 * writes bench/results/<part>.json; this prints them all and a summary of every target.
 *
 *   npm run bench -- [--only journey,latency,webhooks,memory,memory-compiled,rss] [any part's options, e.g. --users 500]
 *
 * memory-compiled is part 4 again on the production build (tsc → plain node, no tsx; bench/lib/compiled.ts);
 * journey-compiled and webhooks-compiled (parts 1–3 on the production build) run only when asked for with --only.
 * rss is the production build as its own process, its memory read from /proc (bench/rss.ts).
 */
const PARTS = [
  "journey",
  "journey-compiled",
  "latency",
  "webhooks",
  "webhooks-compiled",
  "memory",
  "memory-compiled",
  "rss",
] as const;
const DEFAULT_PARTS = ["journey", "latency", "webhooks", "memory", "memory-compiled", "rss"];
/** Parts that are another part's script with extra options. */
const VARIANTS: Record<string, { script: string; args: string[] }> = {
  "journey-compiled": { script: "journey", args: ["--compiled"] },
  "webhooks-compiled": { script: "webhooks", args: ["--compiled"] },
  "memory-compiled": { script: "memory", args: ["--compiled"] },
};
const BUDGET_SECONDS = 600;
const only = stringOption("only", "BENCH_ONLY", DEFAULT_PARTS.join(","))
  .split(",")
  .map((part) => part.trim())
  .filter(Boolean);
const passThrough = process.argv.slice(2).filter((arg, index, all) => {
  if (arg === "--only" || arg.startsWith("--only=")) return false;
  return !(all[index - 1] === "--only" && !arg.startsWith("--"));
});
const benchDir = fileURLToPath(new URL(".", import.meta.url));

function runPart(part: string): Promise<{ code: number; output: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const variant = VARIANTS[part] ?? { script: part, args: [] };
    const child = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        "tsx",
        join(benchDir, `${variant.script}.ts`),
        ...variant.args,
        ...passThrough,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("close", (code) => resolve({ code: code ?? 1, output, seconds: (Date.now() - started) / 1000 }));
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const unknown = only.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length > 0)
    throw new Error(`unknown part(s): ${unknown.join(", ")} (parts: ${PARTS.join(", ")})`);
  console.log(`# Benchmarks\n\n${new Date().toISOString()} — ${machineLine()}.\n`);
  const durations: [string, number, number][] = [];
  for (const part of PARTS.filter((p) => only.includes(p))) {
    progress(`── ${part} ──`);
    const { code, output, seconds } = await runPart(part);
    durations.push([part, seconds, code]);
    console.log(output.trim() || `(${part} printed nothing)`);
    console.log(code === 0 ? "" : `\n> ❌ ${part} exited with code ${code}.\n`);
  }

  const checks: (TargetCheck & { part: string })[] = [];
  for (const [part, , code] of durations) {
    if (code !== 0) continue;
    try {
      const results = JSON.parse(readFileSync(join(RESULTS_DIR, `${part}.json`), "utf8")) as {
        targets?: TargetCheck[];
      };
      for (const target of results.targets ?? []) checks.push({ ...target, part });
    } catch {
      // A part that failed before writing results is reported above.
    }
  }
  const totalSeconds = (Date.now() - started) / 1000;
  const memory = memoryComparison(durations);
  console.log(
    [
      "## Summary",
      "",
      table(
        ["Part", "Target", "Goal", "Measured", ""],
        checks.map((item) => [item.part, item.name, item.target, item.measured, item.met ? "✅" : "❌"]),
      ),
      "",
      ...(memory ? [memory, ""] : []),
      table(
        ["Part", "Wall time", "Exit"],
        [
          ...durations.map(([part, seconds, code]) => [
            part,
            `${num(seconds, 0)} s`,
            code === 0 ? "ok" : `code ${code}`,
          ]),
          [
            "all",
            `${num(totalSeconds, 0)} s`,
            totalSeconds < BUDGET_SECONDS ? "✅ < 10 min" : "❌ over 10 min",
          ],
        ],
      ),
    ].join("\n"),
  );
  writeResults("summary", { parts: durations, targets: checks, totalSeconds });
  if (durations.some(([, , code]) => code !== 0)) process.exitCode = 1;
}

interface MemoryResults {
  settings?: { users?: number };
  process?: { loaded?: { rss: number }; after?: { rss: number } };
}

/** RSS of the same code run through tsx and compiled (production), when both memory parts ran in this run. */
function memoryComparison(durations: [string, number, number][]): string | undefined {
  const read = (part: string): MemoryResults | undefined => {
    if (!durations.some(([name, , code]) => name === part && code === 0)) return undefined;
    try {
      return JSON.parse(readFileSync(join(RESULTS_DIR, `${part}.json`), "utf8")) as MemoryResults;
    } catch {
      return undefined;
    }
  };
  const tsx = read("memory");
  const compiled = read("memory-compiled");
  if (!tsx?.process || !compiled?.process) return undefined;
  const mb = (value: number | undefined) => (value === undefined ? "—" : `${num(value / 1024 / 1024, 1)} MB`);
  const users = num(compiled.settings?.users ?? tsx.settings?.users ?? 0, 0);
  return table(
    ["Process RSS (after GC)", "TypeScript through tsx", "Compiled, plain node (production)"],
    [
      ["Right after loading the code", mb(tsx.process.loaded?.rss), mb(compiled.process.loaded?.rss)],
      [
        `With ${users} users holding a live flow`,
        mb(tsx.process.after?.rss),
        mb(compiled.process.after?.rss),
      ],
    ],
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
