import type { MessageEntity } from "grammy/types";
import { badRequest } from "./errors.ts";

/**
 * Telegram's HTML parse mode: returns the plain text and the entities, or throws the 400 Telegram would.
 * Offsets are UTF-16 code units, like Telegram's.
 */
export function parseHtml(html: string): { text: string; entities: MessageEntity[] } {
  let out = "";
  const entities: MessageEntity[] = [];
  const open: { tag: string; offset: number; entity: Omit<MessageEntity, "offset" | "length"> | null }[] = [];
  const byteOffset = (index: number) => Buffer.byteLength(html.slice(0, index));
  const fail = (detail: string) => badRequest(`can't parse entities: ${detail}`);
  let i = 0;
  while (i < html.length) {
    const char = html[i]!;
    if (char === "&") {
      const match = /^&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot);/.exec(html.slice(i, i + 12));
      if (match) {
        const name = match[1]!;
        if (name.startsWith("#x")) out += String.fromCodePoint(Number.parseInt(name.slice(2), 16));
        else if (name.startsWith("#")) out += String.fromCodePoint(Number.parseInt(name.slice(1), 10));
        else out += { lt: "<", gt: ">", amp: "&", quot: '"' }[name as "lt"];
        i += match[0].length;
      } else {
        out += char;
        i += 1;
      }
      continue;
    }
    if (char !== "<") {
      out += char;
      i += 1;
      continue;
    }
    const end = html.indexOf(">", i);
    if (end < 0) throw fail(`Unexpected end of name token at byte offset ${byteOffset(i)}`);
    const raw = html.slice(i + 1, end);
    if (raw.startsWith("/")) {
      const name = raw.slice(1).trim().toLowerCase();
      const top = open.pop();
      if (!top || top.tag !== name) {
        const expected = top ? `"</${top.tag}>"` : "no end tag";
        throw fail(
          `Unmatched end tag at byte offset ${byteOffset(i)}, expected ${expected}, found "</${name}>"`,
        );
      }
      const length = out.length - top.offset;
      if (top.entity && length > 0)
        entities.push({ ...top.entity, offset: top.offset, length } as MessageEntity);
    } else {
      const nameMatch = /^([a-zA-Z][\w-]*)/.exec(raw);
      if (!nameMatch) throw fail(`Unsupported start tag "${raw}" at byte offset ${byteOffset(i)}`);
      const tag = nameMatch[1]!.toLowerCase();
      const attrs = parseAttributes(raw.slice(nameMatch[0].length));
      const entity = entityFor(tag, attrs, open.at(-1));
      if (entity === undefined) throw fail(`Unsupported start tag "${tag}" at byte offset ${byteOffset(i)}`);
      open.push({ tag, offset: out.length, entity });
    }
    i = end + 1;
  }
  const unclosed = open.pop();
  if (unclosed) throw fail(`Can't find end tag corresponding to start tag "${unclosed.tag}"`);
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { text: out, entities };
}

function parseAttributes(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const match of source.matchAll(/([a-zA-Z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+)))?/g)) {
    attrs[match[1]!.toLowerCase()] = unescapeAttr(match[2] ?? match[3] ?? match[4] ?? "");
  }
  return attrs;
}

function unescapeAttr(value: string): string {
  return value.replace(
    /&(lt|gt|amp|quot);/g,
    (_, name: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"' })[name]!,
  );
}

type OpenTag = { tag: string; entity: Omit<MessageEntity, "offset" | "length"> | null };

/** undefined = unsupported tag; null = a tag that produces no entity of its own (code inside pre). */
function entityFor(
  tag: string,
  attrs: Record<string, string>,
  parent: OpenTag | undefined,
): Omit<MessageEntity, "offset" | "length"> | null | undefined {
  switch (tag) {
    case "b":
    case "strong":
      return { type: "bold" };
    case "i":
    case "em":
      return { type: "italic" };
    case "u":
    case "ins":
      return { type: "underline" };
    case "s":
    case "strike":
    case "del":
      return { type: "strikethrough" };
    case "tg-spoiler":
      return { type: "spoiler" };
    case "span":
      return attrs.class === "tg-spoiler" ? { type: "spoiler" } : undefined;
    case "a": {
      const href = attrs.href ?? "";
      return { type: "text_link", url: href } as Omit<MessageEntity, "offset" | "length">;
    }
    case "code": {
      const language = /^language-(.+)$/.exec(attrs.class ?? "")?.[1];
      if (parent?.tag === "pre" && parent.entity) {
        if (language) Object.assign(parent.entity, { language });
        return null;
      }
      return { type: "code" };
    }
    case "pre":
      return { type: "pre" };
    case "blockquote":
      return { type: "expandable" in attrs ? "expandable_blockquote" : "blockquote" };
    case "tg-emoji":
      return { type: "custom_emoji", custom_emoji_id: attrs["emoji-id"] ?? "" } as Omit<
        MessageEntity,
        "offset" | "length"
      >;
    default:
      return undefined;
  }
}

/** Entities Telegram detects in what users type: /commands (with an optional @bot suffix). */
export function detectUserEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  for (const match of text.matchAll(
    /(^|[\s(])(\/[a-zA-Z0-9_]{1,32}(?:@[a-zA-Z0-9_]{3,32})?)(?=$|[\s.,;:!?)])/g,
  )) {
    const offset = (match.index ?? 0) + match[1]!.length;
    entities.push({ type: "bot_command", offset, length: match[2]!.length });
  }
  return entities;
}
