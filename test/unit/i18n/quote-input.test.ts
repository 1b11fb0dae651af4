import { describe, expect, it } from "vitest";
import { QUOTE_MAX_GRAPHEMES, quoteInput } from "#src/i18n/index.js";

describe("quoteInput", () => {
  it("escapes short text and folds whitespace", () => {
    expect(quoteInput("  <b>Access</b> & co\n\nbank ")).toBe("&lt;b&gt;Access&lt;/b&gt; &amp; co bank");
  });

  it("cuts long text to the limit with an ellipsis, escaping after the cut", () => {
    const quoted = quoteInput("x".repeat(4096));
    expect(quoted).toBe(`${"x".repeat(QUOTE_MAX_GRAPHEMES)}…`);
    // "&" at the cut point never leaves half an entity behind.
    expect(quoteInput("&".repeat(100), 5)).toBe(`${"&amp;".repeat(5)}…`);
    expect(quoteInput("<".repeat(100), 3)).toBe("&lt;&lt;&lt;…");
  });

  it("counts graphemes: emoji sequences, flags and accents are never split", () => {
    const family = "👨‍👩‍👧‍👦";
    expect(quoteInput(family.repeat(10), 3)).toBe(`${family.repeat(3)}…`);
    expect(quoteInput("🇳🇬".repeat(10), 2)).toBe("🇳🇬🇳🇬…");
    expect(quoteInput("e\u0301".repeat(10), 4)).toBe(`${"e\u0301".repeat(4)}…`);
    expect(quoteInput("مرحبا بالعالم", 5)).toBe("مرحبا…");
  });
});
