import { expect } from "vitest";
import { CHART_HEIGHT, CHART_WIDTH } from "#src/charts/daily-bars.js";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A chart as sent: a PNG (signature, IHDR size) of the chart's dimensions, under 100 KB. */
export function expectChartPng(bytes: Buffer): void {
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(bytes.toString("latin1", 12, 16)).toBe("IHDR");
  expect({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }).toEqual({
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
  });
  expect(bytes.length).toBeLessThan(100 * 1024);
}
