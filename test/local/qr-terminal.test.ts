import QRCode from "qrcode";
import { describe, expect, it } from "vitest";
import { detectScale, drawPng, parseDrawing, pngToBitmap } from "#src/standins/local/qr-terminal.js";

/** The QR's modules as booleans, with the light quiet zone qrcode draws around it. */
function expectedModules(text: string, margin: number): boolean[][] {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" });
  const size = modules.size + margin * 2;
  return Array.from({ length: size }, (_, y) =>
    Array.from({ length: size }, (_, x) => {
      const row = y - margin;
      const col = x - margin;
      return row >= 0 && col >= 0 && row < modules.size && col < modules.size && modules.get(row, col) === 1;
    }),
  );
}

describe("QR codes drawn in the terminal", () => {
  const invoice =
    "lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu";

  it("draws a PNG from the qrcode package module for module, with half blocks", async () => {
    const png = await QRCode.toBuffer(invoice, {
      type: "png",
      errorCorrectionLevel: "M",
      margin: 4,
      scale: 4,
    });
    const bitmap = pngToBitmap(png);
    expect(detectScale(bitmap)).toBe(4);
    const lines = drawPng(png, { maxWidth: 200 });
    const expected = expectedModules(invoice, 4);
    // Two pixel rows per line; an odd last row is padded with light pixels.
    expect(lines).toHaveLength(Math.ceil(expected.length / 2));
    expect(lines.every((line) => [...line].length === expected.length)).toBe(true);
    expect(lines.join("")).toMatch(/^[█▀▄ ]+$/);
    const drawn = parseDrawing(lines).slice(0, expected.length);
    expect(drawn).toEqual(expected);
  });

  it("uses explicit black-on-white colours when asked, and scales wide pictures down", async () => {
    const png = await QRCode.toBuffer("hello", { type: "png", scale: 8 });
    const coloured = drawPng(png, { color: true });
    expect(coloured[0]).toContain("\x1b[38;5;231;48;5;231m▀");
    expect(coloured.join("")).toContain("\x1b[38;5;16;");
    expect(coloured.every((line) => line.endsWith("\x1b[0m"))).toBe(true);
    const narrow = drawPng(png, { maxWidth: 10 });
    expect(narrow.every((line) => [...line].length === 10)).toBe(true);
  });

  it("refuses bytes that are not a PNG", () => {
    expect(() => drawPng(Buffer.from("not a png"))).toThrow();
  });
});
