import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { qrPng } from "#src/bot/flow/qr-png.js";
import { pngToBitmap } from "#src/standins/local/qr-terminal.js";
import { expectedBitmap } from "../../../support/png.ts";

describe("qrPng", () => {
  it("draws any content, size and scale as a PNG that decodes to its QR matrix", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 300 }),
        fc.integer({ min: 4, max: 9 }),
        fc.integer({ min: 4, max: 6 }),
        (content, minScale, margin) => {
          const drawn = qrPng(content, { margin, minScale, targetSize: 0 });
          expect(drawn.scale).toBe(minScale);
          expect(pngToBitmap(drawn.png)).toEqual(expectedBitmap(content, minScale, margin));
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("qrPng's size", () => {
  it("keeps an invoice's QR a small photo (a 400-character BOLT11 invoice, drawn at 512 px)", () => {
    const invoice = `lnbc25u1p${"qpzry9x8gf2tvdw0s3jn54khce6mua7l".repeat(13)}`.slice(0, 400).toUpperCase();
    const drawn = qrPng(invoice);
    expect(pngToBitmap(drawn.png)).toEqual(expectedBitmap(invoice, drawn.scale, 4));
    expect(drawn.png.length).toBeLessThan(4 * 1024);
  });
});
