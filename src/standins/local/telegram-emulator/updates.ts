import type { Update } from "grammy/types";

/** Telegram's default when allowed_updates is empty or never given. */
const NOT_BY_DEFAULT = new Set(["chat_member", "message_reaction", "message_reaction_count"]);

type ParkOutcome = "update" | "timeout" | "aborted" | "terminated";

function updateType(update: Update): string {
  return Object.keys(update).find((key) => key !== "update_id") ?? "unknown";
}

/**
 * Pending updates, confirmed by getUpdates offsets or by webhook deliveries.
 * Idle long polls are parked on a promise and woken by push(): no timers spin while nobody writes.
 */
export class UpdateQueue {
  private nextId: number;
  private queue: Update[] = [];
  private allowed: Set<string> | undefined;
  private readonly parked = new Set<(outcome: ParkOutcome) => void>();
  /** Called after every push, confirmation or drop (webhook pusher, idle detection). */
  readonly listeners = new Set<() => void>();
  /** Called when a long poll parks (the bot is waiting for updates). */
  readonly parkListeners = new Set<() => void>();

  constructor(firstUpdateId = 1) {
    this.nextId = firstUpdateId;
  }

  push(body: Omit<Update, "update_id">): Update {
    const update = { update_id: this.nextId, ...body } as Update;
    this.nextId += 1;
    this.queue.push(update);
    for (const wake of [...this.parked]) wake("update");
    this.changed();
    return update;
  }

  pending(): readonly Update[] {
    return this.queue;
  }

  get size(): number {
    return this.queue.length;
  }

  /** allowed_updates persists across calls, as on Telegram; [] restores the default. */
  setAllowed(list: string[] | undefined): void {
    if (list === undefined) return;
    this.allowed = list.length === 0 ? undefined : new Set(list);
  }

  allowedList(): string[] | undefined {
    return this.allowed ? [...this.allowed] : undefined;
  }

  isAllowed(update: Update): boolean {
    const type = updateType(update);
    return this.allowed ? this.allowed.has(type) : !NOT_BY_DEFAULT.has(type);
  }

  /** getUpdates offset: forget everything below it; a negative offset keeps only the last |offset|. */
  confirm(offset: number): void {
    const before = this.queue.length;
    if (offset < 0) this.queue = this.queue.slice(offset);
    else this.queue = this.queue.filter((update) => update.update_id >= offset);
    if (this.queue.length !== before) this.changed();
  }

  /** The next batch, silently dropping update types the bot did not ask for. */
  take(limit: number): Update[] {
    const before = this.queue.length;
    this.queue = this.queue.filter((update) => this.isAllowed(update));
    if (this.queue.length !== before) this.changed();
    return this.queue.slice(0, limit);
  }

  remove(updateId: number): void {
    const before = this.queue.length;
    this.queue = this.queue.filter((update) => update.update_id !== updateId);
    if (this.queue.length !== before) this.changed();
  }

  drop(): void {
    if (this.queue.length === 0) return;
    this.queue = [];
    this.changed();
  }

  /** Park a long poll until an update arrives, the timeout passes, the client leaves or a newer poll wins. */
  park(timeoutMs: number, signal: AbortSignal): Promise<ParkOutcome> {
    return new Promise((resolve) => {
      const finish = (outcome: ParkOutcome) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.parked.delete(finish);
        resolve(outcome);
      };
      const onAbort = () => finish("aborted");
      const timer = setTimeout(() => finish("timeout"), timeoutMs);
      if (signal.aborted) return finish("aborted");
      signal.addEventListener("abort", onAbort);
      this.parked.add(finish);
      for (const listener of [...this.parkListeners]) listener();
    });
  }

  /** Telegram ends an older long poll with 409 when a newer getUpdates arrives. */
  terminateParked(): void {
    for (const finish of [...this.parked]) finish("terminated");
  }

  /** Shutdown: answer parked polls with an empty batch, as if their timeout had passed. */
  releaseParked(): void {
    for (const finish of [...this.parked]) finish("timeout");
  }

  get parkedCount(): number {
    return this.parked.size;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
