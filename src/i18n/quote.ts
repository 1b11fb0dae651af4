/** How much of what someone typed a reply repeats back by default (a search, a name, a command argument). */
export const QUOTE_MAX_GRAPHEMES = 48;

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });

function escapeText(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * User (or API) text made safe to repeat inside a Telegram HTML reply: whitespace runs (newlines included)
 * become one space, at most `max` user-perceived characters (graphemes: an emoji with its modifiers or a letter
 * with its accents is one) are kept, "…" marks a cut, and the result is HTML-escaped after cutting, so a cut
 * never splits an entity or a surrogate pair.
 */
export function quoteInput(value: string, max = QUOTE_MAX_GRAPHEMES): string {
  const flat = value.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return escapeText(flat);
  let kept = "";
  let count = 0;
  for (const { segment } of segmenter.segment(flat)) {
    if (count === max) return `${escapeText(kept.trimEnd())}…`;
    kept += segment;
    count += 1;
  }
  return escapeText(kept);
}
