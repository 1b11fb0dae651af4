import { startTelegramEmulator, type TelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { serveParent } from "../lib/child.ts";

/**
 * The Telegram emulator (real HTTP, Telegram's flood limits when asked) in its own process, for the webhook bench.
 * The parent counts what reached it through `tally`.
 */
let tg: TelegramEmulator | undefined;

function emulator(): TelegramEmulator {
  if (!tg) throw new Error("emulator not started");
  return tg;
}

export interface Tally {
  /** Successful sendMessage calls after the mark, per chat id. */
  sendsByChat: Record<string, number>;
  sends: number;
  edits: number;
  /** Answers with 429 (flood control) after the mark. */
  tooMany: number;
  /** Epoch ms of the last successful send/edit after the mark. */
  lastAt: number;
  callLogSize: number;
}

export interface Timeline {
  edits: Record<string, number[]>;
  sends: Record<string, number[]>;
}

let mark = 0;

serveParent({
  async start(options: { callLogLimit: number }) {
    tg = await startTelegramEmulator({ callLogLimit: options.callLogLimit, rateLimits: false });
    return { token: tg.token, apiRoot: tg.apiRoot };
  },
  users(ids: number[]) {
    for (const id of ids)
      emulator().user({ id, first_name: `User ${id}`, started: true, language_code: "en" });
    return ids.length;
  },
  rateLimits(on: boolean) {
    emulator().setRateLimits(on);
    return on;
  },
  /** From now on, count. */
  mark() {
    mark = Date.now();
    return mark;
  },
  /** Cheap progress poll: successful sends and edits since the mark. */
  count() {
    let sends = 0;
    let edits = 0;
    for (const call of emulator().calls()) {
      if (call.at < mark || !call.ok) continue;
      if (call.method === "sendMessage") sends += 1;
      else if (call.method === "editMessageText") edits += 1;
    }
    return { sends, edits };
  },
  tally(): Tally {
    const tally: Tally = { sendsByChat: {}, sends: 0, edits: 0, tooMany: 0, lastAt: 0, callLogSize: 0 };
    const calls = emulator().calls();
    tally.callLogSize = calls.length;
    for (const call of calls) {
      if (call.at < mark) continue;
      if (call.status === 429) tally.tooMany += 1;
      if (!call.ok) continue;
      if (call.method === "sendMessage") {
        const chat = String(call.params.chat_id);
        tally.sendsByChat[chat] = (tally.sendsByChat[chat] ?? 0) + 1;
        tally.sends += 1;
        tally.lastAt = Math.max(tally.lastAt, call.at);
      } else if (call.method === "editMessageText") {
        tally.edits += 1;
        tally.lastAt = Math.max(tally.lastAt, call.at);
      }
    }
    return tally;
  },
  /** Epoch ms of each successful card edit and notification after the mark, per chat, in order. */
  timeline(): Timeline {
    const timeline: Timeline = { edits: {}, sends: {} };
    for (const call of emulator().calls()) {
      if (call.at < mark || !call.ok) continue;
      const into =
        call.method === "editMessageText"
          ? timeline.edits
          : call.method === "sendMessage"
            ? timeline.sends
            : undefined;
      if (!into) continue;
      const chat = String(call.params.chat_id);
      const times = into[chat] ?? [];
      times.push(call.at);
      into[chat] = times;
    }
    return timeline;
  },
  async close() {
    await tg?.close();
    return true;
  },
});
