/**
 * The nesting depth of a JSON text, measured on the raw bytes without parsing (so without recursion): brackets
 * inside strings do not count. Stops as soon as `limit` is passed. A webhook nested deeper than any real event
 * can be parsed, but serialising it again (the job payload) overflows the stack, so the receiver refuses it first.
 */
export function jsonDepthExceeds(raw: Uint8Array, limit: number): boolean {
  const QUOTE = 0x22;
  const BACKSLASH = 0x5c;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (byte === QUOTE) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      depth++;
      if (depth > limit) return true;
    } else if (byte === 0x7d || byte === 0x5d) depth--;
  }
  return false;
}
