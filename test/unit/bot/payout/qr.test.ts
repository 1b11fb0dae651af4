import fc from "fast-check";
import QRCode from "qrcode";
import { describe, expect, it } from "vitest";
import { invoiceQrPng } from "#src/bot/payout/invoice.js";
import { invoiceQrContent, invoiceQrData } from "#src/bot/payout/qr.js";
import { detectScale, pngToBitmap } from "#src/standins/local/qr-terminal.js";
import { expectedBitmap } from "../../../support/png.ts";

// A sandbox BOLT11 invoice (signet, 6,754 sats).
const INVOICE =
  "lntbs67540n1p4sy2vfpp50lmtmx0parm532mwhaysufe9y85znhv8guglgsgy7mn4h3fwezessp5r9j0yuy6zwt6ppqjkasprg70vf9sx4dfztzlvvyzhjn7crv0p8rsdpj2dskuerzdauzqurp09hh2apqw96k7ar9yqcnxvf3x5knjvfcxsxqzfvcqzzsnp4q04x3wtes9xr9a0sn5g97mpxxt2jtsqfcdta9pa2vuw74jejt8fxc9qrsgqqvdmm03jyugzxaun28x88u8rreneesdr76h30mqvykgrnexgguqzzgkv5ln6dasrkxp9z9xquklassnjnz5rqwrjzxrmgepcta5u9wqpn2ccvr";

describe("invoice QR", () => {
  it("decodes to exactly the QR of lightning:<BOLT11 in upper case>, with a quiet zone and crisp modules", async () => {
    const png = await invoiceQrPng(INVOICE);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const content = invoiceQrContent(INVOICE);
    expect(content).toBe(`lightning:${INVOICE.toUpperCase()}`);

    const bitmap = pngToBitmap(png);
    const size = bitmap.length;
    expect(bitmap.every((row) => row.length === size)).toBe(true);
    // About 500 px: big enough to scan from a phone screen, small enough to send fast.
    expect(size).toBeGreaterThanOrEqual(400);
    expect(size).toBeLessThanOrEqual(600);
    const scale = detectScale(bitmap);
    expect(scale).toBeGreaterThanOrEqual(4);
    const modules = QRCode.create(content, { errorCorrectionLevel: "M" }).modules.size;
    const margin = (size / scale - modules) / 2;
    expect(margin).toBe(4);
    // Every pixel: the module grid of QRCode.create(content), scaled, inside a light quiet zone.
    expect(bitmap).toEqual(expectedBitmap(content, scale, margin));
  });

  it("is the same picture every time for the same invoice", async () => {
    expect((await invoiceQrPng(INVOICE)).equals(await invoiceQrPng(INVOICE))).toBe(true);
  });
});

describe("invoice QR segments", () => {
  const bech32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
  const letters = [...bech32].filter((char) => !/[0-9]/.test(char)).join("");
  const same = (content: string, data: ReturnType<typeof invoiceQrData>) => {
    const auto = QRCode.create(content, { errorCorrectionLevel: "M" });
    const given = QRCode.create(data, { errorCorrectionLevel: "M" });
    expect(given.version).toBe(auto.version);
    expect(given.maskPattern).toBe(auto.maskPattern);
    expect(Buffer.from(given.modules.data).equals(Buffer.from(auto.modules.data))).toBe(true);
  };

  it("gives qrcode the segments its optimiser would pick: the very same symbol", () => {
    expect(invoiceQrData(INVOICE)).toEqual([
      { data: Buffer.from("lightning"), mode: "byte" },
      { data: `:${INVOICE.toUpperCase()}`, mode: "alphanumeric" },
    ]);
    same(invoiceQrContent(INVOICE), invoiceQrData(INVOICE));
  });

  it("is the optimiser's symbol for any bech32 invoice, digit runs included", () => {
    // Text of bech32 characters with digit runs up to the length where the optimiser is asked instead.
    const chunk = fc.oneof(
      fc.string({ unit: fc.constantFrom(...letters), minLength: 1, maxLength: 40 }),
      fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: 14 }),
    );
    fc.assert(
      fc.property(fc.array(chunk, { minLength: 1, maxLength: 30 }), (chunks) => {
        const invoice = `lnbc${chunks.join("")}`;
        same(invoiceQrContent(invoice), invoiceQrData(invoice));
      }),
      { numRuns: 300 },
    );
  });

  it("leaves anything that is not bech32 to the optimiser", () => {
    expect(invoiceQrData("lnbc1 not bech32!")).toBe("lightning:LNBC1 NOT BECH32!");
    expect(invoiceQrData(`lnbc${"1".repeat(12)}qq`)).toBe(`lightning:LNBC${"1".repeat(12)}QQ`);
  });
});
