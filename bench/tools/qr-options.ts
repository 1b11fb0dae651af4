import { crc32, deflateSync } from "node:zlib";
import { PNG } from "pngjs";
import QRCode from "qrcode";
import { invoiceQrPng } from "#src/bot/payout/invoice.js";
import { num, table } from "../lib/report.ts";
import { startBenchSandbox } from "../lib/sandbox.ts";

/**
 * What one invoice QR costs, as src/bot/payout/invoice.ts renders it and with cheaper PNG options
 * (pngjs tries all five row filters and deflates at level 9 in RGBA by default). A real sandbox BOLT11 invoice.
 *
 *   node --import tsx bench/tools/qr-options.ts [count]
 */
const COUNT = Number(process.argv[2] ?? 100);

async function invoice(): Promise<string> {
  const sandbox = await startBenchSandbox();
  const response = await fetch(`${sandbox.baseUrl}/quote`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": sandbox.apiKey },
    body: JSON.stringify({
      amount: 1_000_000,
      sourceCurrency: "BTCSAT",
      targetCurrency: "NGNKOBO",
      paymentMethod: "LIGHTNING",
      paymentCurrency: "NGNKOBO",
      autopayout: true,
      beneficiary: {
        bankAccountNumber: "0149200000",
        bankAccountName: "OLADEJI OLAOLU",
        bankCode: "000013",
        bankName: "GTBANK PLC",
      },
    }),
  });
  const body = (await response.json()) as { data: { invoice: string } };
  await sandbox.close();
  return body.data.invoice;
}

/** A 1-bit grayscale PNG straight from the QR matrix (what a hand-rolled encoder would cost). */
function onePixelPerBitPng(data: string, scale: number, margin: number): Buffer {
  const qr = QRCode.create([{ data, mode: "alphanumeric" }], { errorCorrectionLevel: "M" });
  const modules = qr.modules.size;
  const size = (modules + 2 * margin) * scale;
  const rowBytes = Math.ceil(size / 8);
  const raw = Buffer.alloc((rowBytes + 1) * size, 0);
  const line = Buffer.alloc(rowBytes + 1, 0);
  for (let my = -margin; my < modules + margin; my += 1) {
    // Build one pixel row per module row, then repeat it `scale` times.
    line.fill(0);
    for (let x = 0; x < size; x += 1) {
      const mx = Math.floor(x / scale) - margin;
      const dark = my >= 0 && mx >= 0 && mx < modules && my < modules && qr.modules.get(my, mx);
      // 1 = white in 1-bit grayscale.
      if (!dark) line[1 + (x >> 3)]! |= 0x80 >> (x & 7);
    }
    for (let repeat = 0; repeat < scale; repeat += 1)
      line.copy(raw, ((my + margin) * scale + repeat) * (rowBytes + 1));
  }
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, "latin1");
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([1, 0, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

async function time(render: () => Promise<Buffer>): Promise<{ ms: number; bytes: number }> {
  for (let i = 0; i < 5; i += 1) await render();
  const before = process.cpuUsage();
  let bytes = 0;
  for (let i = 0; i < COUNT; i += 1) bytes = (await render()).length;
  const cpu = process.cpuUsage(before);
  return { ms: (cpu.user + cpu.system) / 1000 / COUNT, bytes };
}

const bolt11 = await invoice();
const text = `lightning:${bolt11.toUpperCase()}`;
const variants: [string, () => Promise<Buffer>][] = [
  [
    "as shipped: src/bot/flow/qr-png.ts (1-bit, repeated rows filtered Up, deflate 1)",
    () => invoiceQrPng(bolt11),
  ],
  [
    "512 px, grayscale, filter Up, deflate 9",
    () =>
      QRCode.toBuffer(text, {
        type: "png",
        errorCorrectionLevel: "M",
        margin: 2,
        width: 512,
        rendererOpts: { filterType: 2, colorType: 0 } as never,
      }),
  ],
  [
    "512 px, grayscale, filter None, deflate 6",
    () =>
      QRCode.toBuffer(text, {
        type: "png",
        errorCorrectionLevel: "M",
        margin: 2,
        width: 512,
        rendererOpts: { filterType: 0, colorType: 0, deflateLevel: 6 } as never,
      }),
  ],
  [
    "scale 4 px/module (~300 px), grayscale, filter Up",
    () =>
      QRCode.toBuffer(text, {
        type: "png",
        errorCorrectionLevel: "M",
        margin: 2,
        scale: 4,
        rendererOpts: { filterType: 2, colorType: 0 } as never,
      }),
  ],
  [
    "one alphanumeric segment (LIGHTNING:…), scale 4, grayscale, filter Up",
    () =>
      QRCode.toBuffer([{ data: text.toUpperCase(), mode: "alphanumeric" }], {
        type: "png",
        errorCorrectionLevel: "M",
        margin: 2,
        scale: 4,
        rendererOpts: { filterType: 2, colorType: 0 } as never,
      }),
  ],
  [
    "hand-rolled 1-bit PNG, one alphanumeric segment, 8 px/module (~530 px)",
    async () => onePixelPerBitPng(text.toUpperCase(), 8, 2),
  ],
  [
    "QR matrix only (QRCode.create), mixed segments as shipped",
    async () => {
      QRCode.create(text, { errorCorrectionLevel: "M" });
      return Buffer.alloc(0);
    },
  ],
  [
    "QR matrix only, one alphanumeric segment",
    async () => {
      QRCode.create([{ data: text.toUpperCase(), mode: "alphanumeric" }], { errorCorrectionLevel: "M" });
      return Buffer.alloc(0);
    },
  ],
];
// The hand-rolled PNG must be a real PNG: decode it and look at a finder-pattern pixel (dark) and the margin (light).
const decoded = PNG.sync.read(onePixelPerBitPng(text.toUpperCase(), 8, 2));
const pixel = (x: number, y: number) => decoded.data[(y * decoded.width + x) * 4] ?? -1;
if (pixel(0, 0) !== 255 || pixel(16, 16) !== 0)
  throw new Error("the hand-rolled PNG does not decode as a QR code");
const rows: string[][] = [];
for (const [name, render] of variants) {
  const result = await time(render);
  rows.push([name, `${num(result.ms)} ms`, `${num(result.bytes / 1024, 1)} KB`]);
}
console.log(table(["QR rendering", "CPU per QR", "PNG size"], rows));
