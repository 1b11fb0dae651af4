import { Redis } from "ioredis";
import { signWebhookBody } from "#src/events/signature.js";
import { paymentEventBodies, type SyntheticOrder } from "./events.ts";
import type { SendReport } from "./sender-child.ts";

/** Redis commands per event in one stage of the event path. */
export interface StageCost {
  stage: string;
  perEvent: number;
  /** Of those, the commands the bot itself sent (the rest ran inside its scripts): its round trips to Redis. */
  sentPerEvent: number;
  top: Record<string, number>;
}

const STAGES = {
  receive: "receive (signature, dedupe check with the order's read; the mark, set in ingest's script)",
  ingest: "ingest, before the 200 (transition, outbox, mark and the delivery's lock in one script)",
  deliver: "deliver (its claim's reads, in ingest's script; after the 200: card edit, notification, cursor)",
} as const;

/**
 * The event path stage by stage: events posted one at a time (each delivered before the next is posted) while a
 * MONITOR connection records every command, the ones Lua scripts run included (as Redis's own counters count them).
 * Each event's commands are split where its delivery takes the order's lock: before it is ingest, from it on is
 * delivery; the dedupe key is the receiver's. Background work (BullMQ's housekeeping, the due-set sweep) is left out.
 * Only the Redis figures of such a run mean anything (latencies are of one event at a time).
 */
export async function postSerially(input: {
  url: string;
  secret: string;
  orders: SyntheticOrder[];
  run: string;
  redisUrl: string;
  /** Notifications at Telegram so far. */
  notifications: () => Promise<number>;
}): Promise<{ report: SendReport; stages: StageCost[] }> {
  const monitorClient = new Redis(input.redisUrl);
  const monitor = await monitorClient.monitor();
  let segment = -1;
  const commands: Array<{ segment: number; name: string; key: string; inScript: boolean }> = [];
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    const name = (args[0] ?? "").toLowerCase();
    // A script's first key, else the command's.
    const key = (name === "evalsha" || name === "eval" ? args[3] : args[1]) ?? "";
    commands.push({ segment, name, key, inScript: source === "lua" });
  });
  const latenciesMs: number[] = [];
  const postedAt: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  const startedAt = performance.timeOrigin + performance.now();
  let lastAckAt = startedAt;
  try {
    for (const order of input.orders) {
      const bodies = paymentEventBodies(order, input.run);
      for (const [index, body] of bodies.entries()) {
        const before = await input.notifications();
        segment += 1;
        const posted = performance.now();
        postedAt[`${order.index}:${index === 0 ? "received" : "sent"}`] = performance.timeOrigin + posted;
        const response = await fetch(input.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-mavapay-signature": signWebhookBody(body, input.secret),
          },
          body,
        });
        const status = `${response.status} ${((await response.json()) as { status?: string }).status ?? ""}`;
        statuses[status] = (statuses[status] ?? 0) + 1;
        latenciesMs.push(performance.now() - posted);
        lastAckAt = performance.timeOrigin + performance.now();
        const deadline = Date.now() + 10_000;
        while ((await input.notifications()) <= before && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 1));
        // The cursor's move and the lock's release follow the notification.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  } finally {
    monitor.disconnect();
    monitorClient.disconnect();
  }

  const perStage = new Map<string, Map<string, number>>();
  const sentPerStage = new Map<string, number>();
  const count = (stage: string, name: string, inScript: boolean) => {
    const names = perStage.get(stage) ?? new Map<string, number>();
    names.set(name, (names.get(name) ?? 0) + 1);
    perStage.set(stage, names);
    if (!inScript) sentPerStage.set(stage, (sentPerStage.get(stage) ?? 0) + 1);
  };
  let current = -1;
  let delivering = false;
  for (const command of commands) {
    if (command.segment < 0 || isBackground(command)) continue;
    if (command.segment !== current) {
      current = command.segment;
      delivering = false;
    }
    // The delivery's claim: the SET NX of its lock (in ingest's script, or the claim's own when that could not take
    // it), and what follows.
    if (command.key.startsWith("events:lock:")) delivering = true;
    const stage = command.key.startsWith("events:seen:")
      ? STAGES.receive
      : delivering
        ? STAGES.deliver
        : STAGES.ingest;
    count(stage, command.name, command.inScript);
  }
  const events = segment + 1;
  const stages = Object.values(STAGES).map((stage) => {
    const names = [...(perStage.get(stage) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
    return {
      stage,
      perEvent: names.reduce((total, [, calls]) => total + calls, 0) / events,
      sentPerEvent: (sentPerStage.get(stage) ?? 0) / events,
      top: Object.fromEntries(names.slice(0, 8).map(([name, calls]) => [name, calls / events])),
    };
  });
  return {
    report: {
      latenciesMs,
      statuses,
      startedAt,
      lastAckAt,
      lagP99Ms: 0,
      sent: events,
      postedAt,
    },
    stages,
  };
}

/** Work that is not any one event's: BullMQ's own keys, the due-set sweep, the reconciler's schedule. */
function isBackground(command: { name: string; key: string }): boolean {
  if (command.key.startsWith("bull:")) return true;
  if (command.key === "events:outbox:due" && command.name !== "zadd" && command.name !== "zrem") return true;
  if (command.name === "zrangebyscore" && command.key === "orders:open") return true;
  return ["info", "ping", "client", "select", "monitor", "hello", "script"].includes(command.name);
}
