import { PNG } from "pngjs";

interface DrawOptions {
  /** Terminal columns available (default 80). Images wider than this are scaled down. */
  maxWidth?: number;
  /** ANSI colours (explicit black on white: scannable on any terminal theme). Default false. */
  color?: boolean;
}

/** A black-and-white bitmap: `dark[y][x]`. */
export type Bitmap = boolean[][];

/** Decode a PNG into dark/light pixels (alpha composited on white). */
export function pngToBitmap(bytes: Buffer): Bitmap {
  const png = PNG.sync.read(bytes);
  const rows: Bitmap = [];
  for (let y = 0; y < png.height; y += 1) {
    const row: boolean[] = [];
    for (let x = 0; x < png.width; x += 1) {
      const i = (y * png.width + x) * 4;
      const alpha = png.data[i + 3]! / 255;
      const light = (channel: number) => png.data[i + channel]! * alpha + 255 * (1 - alpha);
      const luminance = 0.299 * light(0) + 0.587 * light(1) + 0.114 * light(2);
      row.push(luminance < 128);
    }
    rows.push(row);
  }
  return rows;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The size of one "logical pixel" (a QR module is drawn as scale×scale pixels): the GCD of every run
 * length along rows and columns. 1 for ordinary pictures.
 */
export function detectScale(bitmap: Bitmap): number {
  let scale = 0;
  const runs = (line: boolean[]) => {
    let length = 1;
    for (let i = 1; i <= line.length; i += 1) {
      if (i < line.length && line[i] === line[i - 1]) length += 1;
      else {
        scale = gcd(scale, length);
        length = 1;
      }
      if (scale === 1) return;
    }
  };
  for (const row of bitmap) runs(row);
  const width = bitmap[0]?.length ?? 0;
  for (let x = 0; x < width && scale !== 1; x += 1) runs(bitmap.map((row) => row[x]!));
  return Math.max(1, scale);
}

/** Keep one pixel per logical pixel, then fit the width with nearest-neighbour sampling. */
function normalize(bitmap: Bitmap, maxWidth: number): Bitmap {
  const scale = detectScale(bitmap);
  let out = bitmap
    .filter((_, y) => y % scale === Math.floor(scale / 2))
    .map((row) => row.filter((_, x) => x % scale === Math.floor(scale / 2)));
  const width = out[0]?.length ?? 0;
  if (width > maxWidth) {
    const ratio = width / maxWidth;
    const height = Math.max(1, Math.round(out.length / ratio));
    const source = out;
    out = Array.from({ length: height }, (_, y) =>
      Array.from({ length: maxWidth }, (_, x) => source[Math.floor(y * ratio)]![Math.floor(x * ratio)]!),
    );
  }
  return out;
}

/**
 * Two pixel rows per text line with half blocks. Without colour, LIGHT pixels are drawn (blocks) on the
 * terminal's dark background, like qrcode's own terminal renderer.
 */
function drawBitmap(bitmap: Bitmap, options: DrawOptions = {}): string[] {
  const lines: string[] = [];
  for (let y = 0; y < bitmap.length; y += 2) {
    const top = bitmap[y]!;
    const bottom = bitmap[y + 1];
    let line = "";
    if (options.color) {
      let previous = "";
      for (let x = 0; x < top.length; x += 1) {
        const fg = top[x] ? 16 : 231;
        const bg = (bottom?.[x] ?? false) ? 16 : 231;
        const style = `\x1b[38;5;${fg};48;5;${bg}m`;
        line += `${style === previous ? "" : style}▀`;
        previous = style;
      }
      line += "\x1b[0m";
    } else {
      for (let x = 0; x < top.length; x += 1) {
        const upper = !top[x];
        const lower = !(bottom?.[x] ?? false);
        line += upper && lower ? "█" : upper ? "▀" : lower ? "▄" : " ";
      }
    }
    lines.push(line);
  }
  return lines;
}

/** Draw a PNG (a QR code or any picture) for the terminal; throws if the bytes are not a PNG. */
export function drawPng(bytes: Buffer, options: DrawOptions = {}): string[] {
  return drawBitmap(normalize(pngToBitmap(bytes), options.maxWidth ?? 80), options);
}

/** Read back what drawBitmap drew without colour (tests use it to check a drawn QR module by module). */
export function parseDrawing(lines: string[]): Bitmap {
  const rows: Bitmap = [];
  for (const line of lines) {
    const chars = [...line];
    rows.push(chars.map((char) => !(char === "█" || char === "▀")));
    rows.push(chars.map((char) => !(char === "█" || char === "▄")));
  }
  return rows;
}
