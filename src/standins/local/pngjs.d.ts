// pngjs ships no types; only the synchronous reader is used (by qr-terminal.ts).
declare module "pngjs" {
  export const PNG: {
    sync: {
      read(buffer: Buffer): { width: number; height: number; data: Buffer };
    };
  };
}
