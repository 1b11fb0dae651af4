import QRCode from "qrcode";
import { expect } from "vitest";
import { CHART_HEIGHT, CHART_WIDTH } from "#src/charts/daily-bars.js";
import { type Bitmap, detectScale, pngToBitmap } from "#src/standins/local/qr-terminal.js";

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

/** The picture a QR symbol of `content` should be: `margin` light modules all round, `scale` pixels per module. */
export function expectedBitmap(content: string, scale: number, margin: number): Bitmap {
  const { modules } = QRCode.create(content, { errorCorrectionLevel: "M" });
  const side = modules.size + 2 * margin;
  return Array.from({ length: side * scale }, (_, y) =>
    Array.from({ length: side * scale }, (_, x) => {
      const row = Math.floor(y / scale) - margin;
      const column = Math.floor(x / scale) - margin;
      const inside = row >= 0 && column >= 0 && row < modules.size && column < modules.size;
      return inside && modules.get(row, column) === 1;
    }),
  );
}

/** A QR code as sent: a PNG whose every pixel is the QR of `content` (level M), with the spec's 4-module quiet zone. */
export function expectQrPng(bytes: Buffer, content: string): void {
  const bitmap = pngToBitmap(bytes);
  const scale = detectScale(bitmap);
  const modules = QRCode.create(content, { errorCorrectionLevel: "M" }).modules.size;
  expect((bitmap.length / scale - modules) / 2).toBe(4);
  expect(bitmap).toEqual(expectedBitmap(content, scale, 4));
}
