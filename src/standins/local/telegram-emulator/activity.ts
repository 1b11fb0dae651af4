/**
 * Tracks whether the bot is busy with the emulator: calls in flight (long polls excluded),
 * webhook deliveries in flight, and when anything last happened. Waiting is event-driven.
 */
export class Activity {
  private inFlight = 0;
  private lastAt = Date.now();
  private readonly listeners = new Set<() => void>();

  begin(): void {
    this.inFlight += 1;
    this.touch();
  }

  end(): void {
    this.inFlight -= 1;
    this.touch();
  }

  touch(): void {
    this.lastAt = Date.now();
    for (const listener of [...this.listeners]) listener();
  }

  get busy(): number {
    return this.inFlight;
  }

  /**
   * Resolves once nothing is in flight, `pending()` is 0 and nothing happened for `quietMs`.
   * Rejects after `timeoutMs` with `describe()` in the message.
   */
  idle(options: { quietMs: number; timeoutMs: number }, pending: () => number, describe: () => string) {
    return new Promise<void>((resolve, reject) => {
      let quietTimer: NodeJS.Timeout | undefined;
      const finish = (error?: Error) => {
        clearTimeout(quietTimer);
        clearTimeout(deadline);
        this.listeners.delete(check);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        clearTimeout(quietTimer);
        if (this.inFlight > 0 || pending() > 0) return;
        const remaining = this.lastAt + options.quietMs - Date.now();
        if (remaining <= 0) return finish();
        quietTimer = setTimeout(check, remaining);
      };
      const deadline = setTimeout(
        () => finish(new Error(`The bot did not go idle within ${options.timeoutMs} ms: ${describe()}`)),
        options.timeoutMs,
      );
      this.listeners.add(check);
      check();
    });
  }
}
