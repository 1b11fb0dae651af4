import { createHash } from "node:crypto";

/** A reference of ours the API keeps on the quote: stable for one press or message (the runOnce key). */
export function customerReferenceFor(key: string): string {
  return `tg-${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;
}
