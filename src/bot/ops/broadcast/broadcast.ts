import { randomBytes } from "node:crypto";
import { type Api, GrammyError } from "grammy";
import type { BotDeps } from "#src/bot/context.js";
import type { Store } from "#src/store/index.js";

/**
 * Ops broadcasts: one at a time across all processes (a Redis lock), delivered in the background at a steady
 * pace under Telegram's ~30 messages/second (the process's throttler and auto-retry handle 429s on top), users
 * who blocked the bot marked unreachable on 403, and a final count posted to the admin group.
 */
const BROADCAST_MESSAGES_PER_SECOND = 20;
/** A broadcast that dies with its process frees the lock after this long. */
const LOCK_SECONDS = 6 * 3600;

/** A previewed broadcast waiting for its author's Send (kept an hour). */
interface BroadcastDraft {
  text: string;
  owner: number;
  chatId: number;
}
const DRAFT_SECONDS = 3600;

type Broadcasts = Pick<Store, "broadcasts">;

export async function saveDraft(store: Broadcasts, draft: BroadcastDraft): Promise<string> {
  const id = randomBytes(4).toString("hex");
  await store.broadcasts.saveDraft(id, JSON.stringify(draft), DRAFT_SECONDS);
  return id;
}

export async function readDraft(store: Broadcasts, id: string): Promise<BroadcastDraft | undefined> {
  return parseDraft(await store.broadcasts.readDraft(id));
}

/** Take the draft out (once): a double press finds nothing the second time. */
export async function takeDraft(store: Broadcasts, id: string): Promise<BroadcastDraft | undefined> {
  return parseDraft(await store.broadcasts.takeDraft(id));
}

function parseDraft(raw: string | undefined): BroadcastDraft | undefined {
  if (!raw) return undefined;
  try {
    const draft = JSON.parse(raw) as Partial<BroadcastDraft>;
    return typeof draft.text === "string" &&
      typeof draft.owner === "number" &&
      typeof draft.chatId === "number"
      ? { text: draft.text, owner: draft.owner, chatId: draft.chatId }
      : undefined;
  } catch {
    return undefined;
  }
}

interface BroadcastCounts {
  delivered: number;
  failed: number;
  /** Users who blocked the bot (403) — now marked unreachable. */
  unreachable: number;
  /** Users blocked by ops or already known unreachable. */
  skipped: number;
}

type BroadcastDeps = Pick<BotDeps, "store" | "logger">;

/** Take the broadcast lock; returns the broadcast id, or undefined when another broadcast is running. */
export async function claimBroadcast(store: Broadcasts): Promise<string | undefined> {
  const id = randomBytes(4).toString("hex");
  return (await store.broadcasts.claimLock(id, LOCK_SECONDS)) ? id : undefined;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Deliver `text` (plain text, exactly as previewed) to every user; resolves with the counts. */
export async function deliverBroadcast(
  deps: BroadcastDeps,
  telegram: Api,
  input: { id: string; text: string; by: number },
): Promise<BroadcastCounts> {
  const counts: BroadcastCounts = { delivered: 0, failed: 0, unreachable: 0, skipped: 0 };
  const gapMs = Math.ceil(1000 / BROADCAST_MESSAGES_PER_SECOND);
  try {
    for await (const page of deps.store.users.ids()) {
      for (const userId of page) {
        const user = await deps.store.users.get(userId);
        if (!user || user.blocked || user.unreachable) {
          counts.skipped += 1;
          continue;
        }
        const started = Date.now();
        try {
          await telegram.sendMessage(userId, input.text, { link_preview_options: { is_disabled: true } });
          counts.delivered += 1;
        } catch (error) {
          if (error instanceof GrammyError && error.error_code === 403) {
            counts.unreachable += 1;
            await deps.store.users.update(userId, { unreachable: true });
          } else {
            counts.failed += 1;
            deps.logger.warn({ err: error, userId }, "broadcast message not delivered");
          }
        }
        await deps.store.broadcasts.saveProgress(input.id, JSON.stringify(counts), 7 * 24 * 3600);
        const spent = Date.now() - started;
        if (spent < gapMs) await pause(gapMs - spent);
      }
    }
  } finally {
    await deps.store.broadcasts.releaseLock(input.id);
  }
  await deps.store.audit.record({
    actor: input.by,
    action: "broadcast.finished",
    details: { id: input.id, ...counts },
  });
  return counts;
}
