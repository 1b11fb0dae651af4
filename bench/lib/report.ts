import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Markdown output and JSON results shared by every bench part. */

/** bench/results; BENCH_RESULTS_DIR when a compiled copy of the bench (bench/lib/compiled.ts) writes them. */
export const RESULTS_DIR =
  process.env.BENCH_RESULTS_DIR ?? join(dirname(fileURLToPath(import.meta.url)), "..", "results");

/** Nearest-rank percentile of an unsorted sample (0 for an empty one). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(values: readonly number[]): LatencySummary {
  const sum = values.reduce((total, value) => total + value, 0);
  return {
    count: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: values.length === 0 ? 0 : Math.max(...values),
    mean: values.length === 0 ? 0 : sum / values.length,
  };
}

/** Fixed decimals for small numbers, thousands separators for large ones. */
export function num(value: number, decimals = 2): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(decimals);
}

export const ms = (value: number) => `${num(value)} ms`;
export const bytes = (value: number) =>
  value >= 1024 * 1024
    ? `${num(value / 1024 / 1024, 1)} MB`
    : value >= 1024
      ? `${num(value / 1024, 2)} KB`
      : `${Math.round(value)} B`;

export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.map((cell) => String(cell)).join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

export interface TargetCheck {
  name: string;
  target: string;
  measured: string;
  met: boolean;
}

export function check(name: string, target: string, measured: string, met: boolean): TargetCheck {
  return { name, target, measured, met };
}

export function targetsTable(checks: TargetCheck[]): string {
  return table(
    ["Target", "Goal", "Measured", ""],
    checks.map((item) => [item.name, item.target, item.measured, item.met ? "✅" : "❌"]),
  );
}

/** Write bench/results/<part>.json (git-ignored) and return its path. */
export function writeResults(part: string, data: Record<string, unknown>): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${part}.json`);
  writeFileSync(
    path,
    `${JSON.stringify({ part, finishedAt: new Date().toISOString(), ...data }, null, 2)}\n`,
  );
  return path;
}

/** A line on stderr so progress does not mix with the markdown on stdout. */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/**
 * Node, its allocator, CPU count and the load average: on a shared machine the last one explains a lot of noise.
 * The allocator is this process's (a compiled run's child runs on the image's jemalloc) unless `allocator` names the
 * measured process's.
 */
export function machineLine(
  allocator = process.env.LD_PRELOAD?.includes("jemalloc") ? "jemalloc" : "glibc malloc",
): string {
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
  return `node ${process.version} on ${allocator}, ${cpus().length} CPUs, load average ${load}`;
}
