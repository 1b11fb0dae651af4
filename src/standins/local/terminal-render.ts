import type { InlineKeyboardMarkup, Message, MessageEntity } from "grammy/types";
import { drawPng } from "./qr-terminal.ts";
import type { ReplyButton } from "./telegram-emulator/types.ts";

interface RenderOptions {
  color: boolean;
  /** Terminal columns (pictures are scaled to fit). */
  width: number;
}

const STYLES: Record<string, [string, string]> = {
  bold: ["\x1b[1m", "\x1b[22m"],
  italic: ["\x1b[3m", "\x1b[23m"],
  underline: ["\x1b[4m", "\x1b[24m"],
  strikethrough: ["\x1b[9m", "\x1b[29m"],
  spoiler: ["\x1b[2m", "\x1b[22m"],
  code: ["\x1b[36m", "\x1b[39m"],
  pre: ["\x1b[36m", "\x1b[39m"],
  text_link: ["\x1b[4m", "\x1b[24m"],
  blockquote: ["\x1b[3m", "\x1b[23m"],
  expandable_blockquote: ["\x1b[3m", "\x1b[23m"],
};

export const dim = (text: string, color: boolean) => (color ? `\x1b[2m${text}\x1b[22m` : text);

/**
 * Text with Telegram entities as ANSI styles: bold → bold, code/pre → cyan, links shown as "text (url)".
 * Works on UTF-16 offsets like Telegram's entities.
 */
function renderEntities(text: string, entities: MessageEntity[] | undefined, color: boolean): string {
  if (!entities || entities.length === 0) return text;
  const cuts = new Set<number>([0, text.length]);
  for (const entity of entities) {
    cuts.add(entity.offset);
    cuts.add(entity.offset + entity.length);
  }
  const points = [...cuts].filter((point) => point <= text.length).sort((a, b) => a - b);
  let out = "";
  for (let i = 0; i < points.length - 1; i += 1) {
    const start = points[i]!;
    const end = points[i + 1]!;
    const active = entities.filter(
      (entity) => entity.offset <= start && entity.offset + entity.length >= end,
    );
    let segment = text.slice(start, end);
    if (color)
      for (const entity of active) {
        const style = STYLES[entity.type];
        if (style) segment = style[0] + segment + style[1];
      }
    out += segment;
    // A link's URL follows its text once the entity ends.
    for (const entity of entities)
      if (
        entity.type === "text_link" &&
        entity.offset + entity.length === end &&
        entity.url !== text.slice(entity.offset, end)
      )
        out += dim(` (${entity.url})`, color);
  }
  return out;
}

/** "[1] Confirm  [2] Cancel" per row, numbered across rows; URL and copy buttons say what they do. */
export function renderInlineKeyboard(markup: InlineKeyboardMarkup | undefined, color: boolean): string[] {
  if (!markup) return [];
  let index = 0;
  return markup.inline_keyboard.map((row) =>
    row
      .map((button) => {
        index += 1;
        const suffix =
          "url" in button && button.url ? " ↗" : "copy_text" in button && button.copy_text ? " 📋" : "";
        const label = `[${index}] ${button.text}${suffix}`;
        return color ? `\x1b[1;34m${label}\x1b[0m` : label;
      })
      .join("  "),
  );
}

export function renderReplyKeyboard(keyboard: ReplyButton[][] | undefined, color: boolean): string[] {
  if (!keyboard) return [];
  let index = 0;
  const rows = keyboard.map((row) =>
    row
      .map((button) => {
        index += 1;
        return `(${index}) ${button.text}`;
      })
      .join("  "),
  );
  return [dim("⌨ keyboard:", color), ...rows];
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The body of a bot message: picture (drawn when it is a PNG), document line, text or caption. */
export function renderMessageBody(
  message: Message,
  options: RenderOptions,
  fileBytes: (fileId: string) => Buffer | undefined,
): string[] {
  const lines: string[] = [];
  const photo = message.photo?.at(-1);
  if (photo) {
    const bytes = fileBytes(photo.file_id);
    let drawn: string[] | undefined;
    if (bytes) {
      try {
        drawn = drawPng(bytes, { maxWidth: Math.max(20, options.width - 2), color: options.color });
      } catch {
        drawn = undefined;
      }
    }
    lines.push(
      ...(drawn ?? [
        dim(`🖼 photo ${photo.width}×${photo.height} (${formatSize(photo.file_size ?? 0)})`, options.color),
      ]),
    );
  }
  if (message.document) {
    const { file_name, file_size, mime_type } = message.document;
    lines.push(
      `📄 ${file_name ?? "file"} (${formatSize(file_size ?? 0)}${mime_type ? `, ${mime_type}` : ""})`,
    );
  }
  if (message.text !== undefined)
    lines.push(...renderEntities(message.text, message.entities, options.color).split("\n"));
  if (message.caption !== undefined)
    lines.push(...renderEntities(message.caption, message.caption_entities, options.color).split("\n"));
  return lines;
}
