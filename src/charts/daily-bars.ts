import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { initWasm, Resvg } from "@resvg/resvg-wasm";

/**
 * Server-side PNG charts: one bar chart of counts per day — a stacked bar of successes per series (corridor) and
 * a red bar of failures beside it — drawn as a small SVG string here and rasterised by resvg compiled to
 * WebAssembly (@resvg/resvg-wasm: one .wasm for every platform, no native module, no optional per-platform
 * package, no canvas or browser). No grammY imports: the bot passes translated labels in and sends the PNG out.
 */
export interface DailyBarsInput {
  title: string;
  /** One label per day, oldest first (e.g. "10/11"). */
  days: readonly string[];
  /** Successes per day, stacked; each `values` has one entry per day. */
  series: ReadonlyArray<{ label: string; values: readonly number[] }>;
  failed: { label: string; values: readonly number[] };
  /** Shown when every value is zero. */
  emptyLabel: string;
}

export const CHART_WIDTH = 800;
export const CHART_HEIGHT = 420;
const PALETTE = ["#2f7ed8", "#1aadce", "#8bbc21", "#f28f43", "#77a1e5", "#910000", "#492970"];
const FAILED_COLOR = "#d64545";
const MARGIN = { top: 74, right: 24, bottom: 44, left: 48 };

interface Renderer {
  fonts: Uint8Array[];
}
let renderer: Promise<Renderer> | undefined;

/**
 * Instantiate the WebAssembly module and read the labels' fonts, once per process. WebAssembly sees no system
 * fonts, so DejaVu Sans comes from an npm package: the chart looks the same on every machine, Docker image or not.
 */
function loadRenderer(): Promise<Renderer> {
  renderer ??= (async () => {
    const require = createRequire(import.meta.url);
    await initWasm(readFileSync(require.resolve("@resvg/resvg-wasm/index_bg.wasm")));
    const font = (file: string) => readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${file}`));
    return { fonts: [font("DejaVuSans.ttf"), font("DejaVuSans-Bold.ttf")] };
  })();
  return renderer;
}

const escapeXml = (value: string): string => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A round step for the y axis: 1, 2 or 5 × 10^n, at most four gridlines. */
function yStep(max: number): number {
  const rough = Math.max(1, max) / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= rough) ?? rough;
  return Math.max(1, Math.ceil(step));
}

export function dailyBarsSvg(input: DailyBarsInput): string {
  const days = input.days.length;
  const plotW = CHART_WIDTH - MARGIN.left - MARGIN.right;
  const plotH = CHART_HEIGHT - MARGIN.top - MARGIN.bottom;
  const totals = input.days.map((_, day) =>
    Math.max(
      input.series.reduce((sum, series) => sum + (series.values[day] ?? 0), 0),
      input.failed.values[day] ?? 0,
    ),
  );
  const step = yStep(Math.max(0, ...totals));
  const top = step * Math.max(1, Math.ceil(Math.max(0, ...totals) / step));
  const y = (value: number) => MARGIN.top + plotH - (value / top) * plotH;
  const slot = plotW / Math.max(1, days);
  const bar = Math.max(2, Math.floor(slot * 0.36));
  const parts: string[] = [
    `<rect width="${CHART_WIDTH}" height="${CHART_HEIGHT}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="28" font-size="18" font-weight="bold" fill="#222">${escapeXml(input.title)}</text>`,
  ];
  for (let value = 0; value <= top; value += step) {
    const at = y(value).toFixed(1);
    parts.push(
      `<line x1="${MARGIN.left}" x2="${CHART_WIDTH - MARGIN.right}" y1="${at}" y2="${at}" stroke="#e3e3e3"/>`,
      `<text x="${MARGIN.left - 6}" y="${at}" dy="4" font-size="11" text-anchor="end" fill="#666">${value}</text>`,
    );
  }
  input.days.forEach((label, day) => {
    const x = MARGIN.left + day * slot + (slot - 2 * bar) / 2;
    let base = 0;
    input.series.forEach((series, index) => {
      const value = series.values[day] ?? 0;
      if (value <= 0) return;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y(base + value).toFixed(1)}" width="${bar}" height="${(y(base) - y(base + value)).toFixed(1)}" fill="${PALETTE[index % PALETTE.length]}"/>`,
      );
      base += value;
    });
    const failed = input.failed.values[day] ?? 0;
    if (failed > 0)
      parts.push(
        `<rect x="${(x + bar).toFixed(1)}" y="${y(failed).toFixed(1)}" width="${bar}" height="${(y(0) - y(failed)).toFixed(1)}" fill="${FAILED_COLOR}"/>`,
      );
    parts.push(
      `<text x="${(MARGIN.left + day * slot + slot / 2).toFixed(1)}" y="${CHART_HEIGHT - MARGIN.bottom + 18}" font-size="11" text-anchor="middle" fill="#444">${escapeXml(label)}</text>`,
    );
  });
  parts.push(
    `<line x1="${MARGIN.left}" x2="${CHART_WIDTH - MARGIN.right}" y1="${y(0)}" y2="${y(0)}" stroke="#999"/>`,
  );
  const legend = [
    ...input.series.map((series, index) => ({ label: series.label, color: PALETTE[index % PALETTE.length] })),
    { label: input.failed.label, color: FAILED_COLOR },
  ];
  let legendX = MARGIN.left;
  for (const entry of legend) {
    parts.push(
      `<rect x="${legendX}" y="42" width="12" height="12" fill="${entry.color}"/>`,
      `<text x="${legendX + 17}" y="52" font-size="12" fill="#333">${escapeXml(entry.label)}</text>`,
    );
    legendX += 30 + entry.label.length * 7;
  }
  if (totals.every((total) => total === 0))
    parts.push(
      `<text x="${CHART_WIDTH / 2}" y="${MARGIN.top + plotH / 2}" font-size="16" text-anchor="middle" fill="#888">${escapeXml(input.emptyLabel)}</text>`,
    );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" font-family="DejaVu Sans">${parts.join("")}</svg>`;
}

/** The chart as a PNG (8-bit RGBA, CHART_WIDTH × CHART_HEIGHT). */
export async function renderDailyBars(input: DailyBarsInput): Promise<Buffer> {
  const { fonts } = await loadRenderer();
  const resvg = new Resvg(dailyBarsSvg(input), {
    font: { fontBuffers: fonts, defaultFontFamily: "DejaVu Sans" },
  });
  try {
    const image = resvg.render();
    try {
      return Buffer.from(image.asPng());
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}
