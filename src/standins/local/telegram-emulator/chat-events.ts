// Matching the bot's messages and describing a chat's events, for the drivers' waits and their error reports.
import type { Message } from "grammy/types";
import type { ChatEvent } from "./types.ts";

/** A substring of the text/caption, a RegExp over it, or a predicate over the message. */
export type MessageMatch = string | RegExp | ((message: Message) => boolean);

/** Text or caption of a message, for matching and error listings. */
export function contentOf(message: Message | undefined): string {
  if (!message) return "";
  return (
    message.text ?? message.caption ?? (message.photo ? "[photo]" : message.document ? "[document]" : "")
  );
}

export function matches(message: Message, match: MessageMatch | undefined): boolean {
  if (match === undefined) return true;
  if (typeof match === "function") return match(message);
  const content = contentOf(message);
  return typeof match === "string" ? content.includes(match) : match.test(content);
}

export function describeMatch(what: string, match: MessageMatch | undefined): string {
  if (match === undefined) return what;
  if (typeof match === "function") return `${what} matching a predicate`;
  return `${what} matching ${typeof match === "string" ? JSON.stringify(match) : String(match)}`;
}

function excerpt(text: string, length = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > length ? `${flat.slice(0, length - 1)}…` : flat);
}

function buttonsOf(message: Message | undefined): string {
  const rows = message?.reply_markup?.inline_keyboard;
  if (!rows) return "";
  return ` [${rows.map((row) => row.map((button) => button.text).join(" | ")).join(" / ")}]`;
}

export function describeEvent(event: ChatEvent): string {
  switch (event.kind) {
    case "message":
      return `message ${event.message.message_id}: ${excerpt(contentOf(event.message))}${buttonsOf(event.message)}`;
    case "edit":
      return `edit of ${event.message.message_id}: ${excerpt(contentOf(event.message))}${buttonsOf(event.message)}`;
    case "delete":
      return `deleted message ${event.messageId}`;
    case "callback_answer":
      return `answered a button press${event.answer.text ? `: ${excerpt(event.answer.text)}` : ""}${event.answer.showAlert ? " (alert)" : ""}`;
    case "chat_action":
      return `chat action ${event.action}`;
  }
}
