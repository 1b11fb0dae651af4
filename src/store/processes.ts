import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { keys } from "./keys.ts";

/**
 * Which bot processes are alive: one heartbeat per process (createApp makes it and shares it). Each process writes
 * `process:<id>` with a short TTL and renews it while it runs; work it owns carries its id — a delivery lock
 * (store/locks.ts), a chat's update lease (store/updates.ts), a pending money-action claim (idempotency.ts) — so
 * another process can tell "busy" from "owner dead" and take the work over at once instead of waiting out the work's
 * own, longer, TTL. A process that stops cleanly deletes its key.
 *
 * The cost of a short TTL: a live process whose renewals stall longer than `ttlMs` (Redis unreachable, event loop
 * blocked) is taken for dead, and its work may run a second time — which every user must tolerate: a delivery is
 * resumable (outbox cursor), a lease is fenced (a stale holder acknowledges nothing), and a quote claim is taken
 * over only after it settled and is resolved from the API before anything is created.
 */
interface ProcessRegistryOptions {
  /** How long the heartbeat lives without renewal. Default 3 s. */
  ttlMs?: number;
  /** How often it is renewed. Default ttlMs / 3. */
  beatMs?: number;
}

export class ProcessRegistry {
  /** This process's id: a random UUID (no ':' in it, so it can prefix lock values). */
  readonly id = randomUUID();
  private readonly ttlMs: number;
  private readonly beatMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    options: ProcessRegistryOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 3_000;
    this.beatMs = options.beatMs ?? Math.max(100, Math.floor(this.ttlMs / 3));
  }

  /** The key a live process keeps; for Lua scripts that must check liveness atomically. */
  keyOf(processId: string): string {
    return keys.process(processId);
  }

  /** Writes the heartbeat now and keeps it alive until stop(). Idempotent. */
  async start(): Promise<void> {
    await this.beat();
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.beat().catch(() => {
        // A missed beat only risks being taken for dead; the next one restores it.
      });
    }, this.beatMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.redis.del(keys.process(this.id));
  }

  private async beat(): Promise<void> {
    await this.redis.set(keys.process(this.id), String(Date.now()), "PX", this.ttlMs);
  }
}
