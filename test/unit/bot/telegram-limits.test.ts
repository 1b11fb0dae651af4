import type { Transformer } from "grammy";
import { describe, expect, it } from "vitest";
import {
  boundedOutput,
  fitHtml,
  fitPlain,
  TELEGRAM_CAPTION_LIMIT,
  TELEGRAM_TEXT_LIMIT,
} from "#src/bot/telegram-limits.js";
import { AnsweredQueries } from "#src/bot/telegram-transformers.js";
import { createLogger } from "#src/log/logger.js";
import { parseHtml } from "#src/standins/local/telegram-emulator/index.js";

/** Telegram's own view of an HTML text: parses (throws like Telegram on broken markup) and counts UTF-16 units. */
const visible = (html: string) => parseHtml(html).text;

describe("fitHtml", () => {
  it("returns text that fits unchanged", () => {
    const html = `<b>hello</b> &amp; ${"x".repeat(100)}`;
    expect(fitHtml(html, 4096)).toBe(html);
    // Markup longer than the limit whose visible text fits is left alone too.
    const tagged = `<b>${"a".repeat(10)}</b>`.repeat(400);
    expect(tagged.length).toBeGreaterThan(4096);
    expect(fitHtml(tagged, 4096)).toBe(tagged);
  });

  it("cuts the visible text to the limit and closes nested tags", () => {
    const html = `<b>bold <i>italic <u>${"z".repeat(5000)}</u></i></b> tail`;
    const fitted = fitHtml(html, 4096);
    expect(visible(fitted).length).toBe(4096);
    expect(fitted.endsWith("…</u></i></b>")).toBe(true);
  });

  it("never cuts inside an entity and counts an entity as one character", () => {
    for (let pad = 0; pad < 6; pad += 1) {
      const html = `${"a".repeat(4090 + pad)}${"&amp;".repeat(20)}`;
      const fitted = fitHtml(html, 4096);
      const text = visible(fitted);
      expect(text.length).toBeLessThanOrEqual(4096);
      expect(text.endsWith("…")).toBe(true);
      expect(fitted).toMatch(/(?:&amp;|a)…$/);
    }
    const entities = "&lt;&gt;&quot;&#38;&#x26;".repeat(1000);
    const text = visible(fitHtml(entities, 100));
    expect(text.length).toBe(100);
    expect(text.startsWith('<>"&&<>')).toBe(true);
  });

  it("never splits a surrogate pair (emoji, in text or as a numeric entity)", () => {
    const emoji = "😀".repeat(3000); // 6000 UTF-16 units
    const text = visible(fitHtml(`<i>${emoji}</i>`, 4096));
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text.slice(0, -1)).toBe("😀".repeat((text.length - 1) / 2));
    const numeric = visible(fitHtml("x&#128512;".repeat(2000), 4096));
    expect(numeric.length).toBeLessThanOrEqual(4096);
    expect(/[\ud800-\udbff]…$/.test(numeric)).toBe(false);
  });

  it("never cuts inside a tag or its attributes", () => {
    const link = `<a href="https://example.com/${"p".repeat(50)}">link text</a> `;
    const html = link.repeat(600);
    for (const limit of [1024, 4096, 37]) {
      const fitted = fitHtml(html, limit);
      expect(visible(fitted).length).toBeLessThanOrEqual(limit);
      expect(fitted.endsWith("</a>") || fitted.endsWith("…")).toBe(true);
    }
  });

  it("keeps right-to-left, zero-width and combining text parseable", () => {
    const html = `<b>مرحبا\u200b بالعالم e\u0301</b>`.repeat(400);
    const text = visible(fitHtml(html, 1024));
    expect(text.length).toBeLessThanOrEqual(1024);
  });
});

describe("fitPlain", () => {
  it("cuts by UTF-16 units without splitting a surrogate pair", () => {
    expect(fitPlain("abc", 3)).toBe("abc");
    expect(fitPlain("abcd", 3)).toBe("ab…");
    const cut = fitPlain("a😀😀😀", 4); // a + 😀 = 3 units, then "…"
    expect(cut).toBe("a😀…");
    expect(fitPlain("😀😀😀", 4)).toBe("😀…");
  });
});

describe("boundedOutput transformer", () => {
  const lines: string[] = [];
  const logger = createLogger({
    level: "warn",
    pretty: false,
    destination: { write: (line: string) => lines.push(line) },
  });
  const guard = boundedOutput(logger);
  const run = async (method: string, payload: Record<string, unknown>) => {
    let seen: Record<string, unknown> = {};
    const prev: Parameters<Transformer>[0] = async (_method, sent) => {
      seen = sent as Record<string, unknown>;
      return { ok: true, result: true } as never;
    };
    await guard(prev, method as never, payload as never);
    return seen;
  };

  it("passes texts that fit untouched and logs nothing", async () => {
    lines.length = 0;
    const payload = { chat_id: 1, text: "<b>hi</b>", parse_mode: "HTML" };
    expect(await run("sendMessage", payload)).toBe(payload);
    expect(lines).toEqual([]);
  });

  it("cuts text, captions and toasts to Telegram's limits and warns without the text", async () => {
    lines.length = 0;
    const secret = "4111111111";
    const long = `<b>${secret}${"x".repeat(5000)}</b>`;
    const sent = await run("sendMessage", { chat_id: 1, text: long, parse_mode: "HTML" });
    expect(visible(sent.text as string).length).toBe(TELEGRAM_TEXT_LIMIT);
    const edited = await run("editMessageText", { chat_id: 1, message_id: 2, text: "y".repeat(9000) });
    expect((edited.text as string).length).toBe(TELEGRAM_TEXT_LIMIT);
    const photo = await run("sendPhoto", { chat_id: 1, caption: long, parse_mode: "HTML" });
    expect(visible(photo.caption as string).length).toBe(TELEGRAM_CAPTION_LIMIT);
    const toast = await run("answerCallbackQuery", { callback_query_id: "1", text: "t".repeat(300) });
    expect((toast.text as string).length).toBe(200);
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({
        level: 40,
        msg: "outgoing Telegram text over the limit: cut",
      });
      expect(line).not.toContain(secret);
    }
  });

  it("clips explicit entities with a plain text and sends Markdown as plain text when cut", async () => {
    const sent = await run("sendMessage", {
      chat_id: 1,
      text: "z".repeat(5000),
      entities: [
        { type: "bold", offset: 0, length: 10 },
        { type: "italic", offset: 4000, length: 900 },
        { type: "code", offset: 4500, length: 5 },
      ],
    });
    expect(sent.entities).toEqual([
      { type: "bold", offset: 0, length: 10 },
      { type: "italic", offset: 4000, length: 95 },
    ]);
    const markdown = await run("sendMessage", {
      chat_id: 1,
      text: "*".repeat(5000),
      parse_mode: "MarkdownV2",
    });
    expect(markdown.parse_mode).toBeUndefined();
    expect((markdown.text as string).length).toBe(TELEGRAM_TEXT_LIMIT);
  });
});

describe("AnsweredQueries", () => {
  it("records answerCallbackQuery calls, answered or refused, and forgets the oldest beyond its capacity", async () => {
    const answered = new AnsweredQueries(2);
    const record = answered.transformer();
    const ok: Parameters<Transformer>[0] = async () => ({ ok: true, result: true }) as never;
    const refused: Parameters<Transformer>[0] = async () => {
      throw new Error("query is too old");
    };
    await record(ok, "answerCallbackQuery" as never, { callback_query_id: "a" } as never);
    await expect(
      record(refused, "answerCallbackQuery" as never, { callback_query_id: "b" } as never),
    ).rejects.toThrow();
    await record(ok, "sendMessage" as never, { chat_id: 1, text: "x" } as never);
    expect([answered.has("a"), answered.has("b")]).toEqual([true, true]);
    answered.add("c");
    expect([answered.has("a"), answered.has("b"), answered.has("c")]).toEqual([false, true, true]);
  });
});
