import type { Logger } from "#src/log/logger.js";

/**
 * The sandbox clock: a base clock (real time unless the caller injects one) plus an offset that
 * POST /_sandbox/clock/advance moves forward. Everything time-based (quote expiry, block pace,
 * webhook retries) is scheduled on this clock, so tests can jump ahead instead of sleeping.
 */
export class SandboxClock {
  private offset = 0;

  constructor(private readonly base: () => number) {}

  now(): number {
    return this.base() + this.offset;
  }

  /** Move the clock to `instant` if that is in the future (never backwards). */
  moveTo(instant: number): void {
    const current = this.now();
    if (instant > current) this.offset += instant - current;
  }

  reset(): void {
    this.offset = 0;
  }

  get offsetMs(): number {
    return this.offset;
  }
}

interface Task {
  id: number;
  due: number;
  label: string;
  run: () => void;
}

/**
 * Timed work on the sandbox clock. Due tasks run (in due order) when the clock is advanced, when a
 * request arrives, and from a real timer so that real time alone also makes things happen.
 */
export class Scheduler {
  private tasks: Task[] = [];
  private nextId = 1;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private running = false;

  constructor(
    private readonly clock: SandboxClock,
    private readonly logger: Logger,
  ) {}

  schedule(due: number, label: string, run: () => void): number {
    const id = this.nextId++;
    this.tasks.push({ id, due, label, run });
    this.arm();
    return id;
  }

  cancel(id: number): void {
    this.tasks = this.tasks.filter((task) => task.id !== id);
  }

  pending(): Array<{ id: number; due: number; label: string }> {
    return [...this.tasks]
      .sort((a, b) => a.due - b.due || a.id - b.id)
      .map(({ id, due, label }) => ({ id, due, label }));
  }

  /** Run everything due by now. Returns how many tasks ran. */
  runDue(): number {
    const ran = this.runUntil(this.clock.now());
    this.arm();
    return ran;
  }

  /**
   * Advance the clock to `target`, running each task at its own due instant so that work it
   * schedules (a renewed payment-link order, the next confirmation) is timed correctly.
   */
  advanceTo(target: number): number {
    const ran = this.runUntil(target);
    this.clock.moveTo(target);
    this.arm();
    return ran;
  }

  clear(): void {
    this.tasks = [];
  }

  close(): void {
    this.closed = true;
    this.tasks = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private runUntil(limit: number): number {
    if (this.running) return 0;
    this.running = true;
    let ran = 0;
    try {
      for (;;) {
        const next = this.earliest();
        if (!next || next.due > limit) break;
        this.tasks = this.tasks.filter((task) => task.id !== next.id);
        this.clock.moveTo(next.due);
        ran += 1;
        try {
          next.run();
        } catch (error) {
          this.logger.error({ err: error, task: next.label }, "sandbox task failed");
        }
      }
    } finally {
      this.running = false;
    }
    return ran;
  }

  private earliest(): Task | undefined {
    let best: Task | undefined;
    for (const task of this.tasks) {
      if (!best || task.due < best.due || (task.due === best.due && task.id < best.id)) best = task;
    }
    return best;
  }

  /** One real timer towards the next due task, capped at 1 s (the base clock may be injected). */
  private arm(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.earliest();
    if (!next) return;
    const delay = Math.min(Math.max(next.due - this.clock.now(), 5), 1000);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.runDue();
    }, delay);
    this.timer.unref();
  }
}
