/**
 * The payout API's clock, as seen from here. Quote deadlines are the API's `expiry` timestamps, so everything that
 * compares against them (the countdown on a card, refusing Confirm, the reconciler's expiry sweep) must use the
 * API's time, not this machine's: a skewed host clock (or the sandbox's movable clock) would otherwise show one
 * deadline and enforce another.
 *
 * Every API response carries an HTTP `Date` header (RFC 9110: the server's time when it produced the response,
 * whole seconds). A response sent between local instants `sentAt` and `receivedAt` with `Date: D` means the
 * server clock minus ours lies in [D − receivedAt, D + 1000 − sentAt]. Successive answers are intersected, which
 * narrows the estimate towards the true offset; an answer that does not overlap means the server clock jumped (an
 * operator fixed it, or the sandbox's clock was advanced), and the estimate starts again from that answer. Before
 * any answer the offset is 0 (this machine's clock).
 */
export class ServerClock {
  private low: number | undefined;
  private high: number | undefined;

  constructor(private readonly local: () => number = Date.now) {}

  /** Server time now (ms): our clock plus the middle of the known offset interval. */
  now(): number {
    return this.local() + this.offsetMs;
  }

  get offsetMs(): number {
    return this.low === undefined || this.high === undefined ? 0 : Math.round((this.low + this.high) / 2);
  }

  /** One response's `Date` header, with our clock just before sending and right after the headers arrived. */
  observe(dateHeader: string | string[] | undefined, sentAt: number, receivedAt: number): void {
    const value = Array.isArray(dateHeader) ? dateHeader[0] : dateHeader;
    if (!value) return;
    const serverMs = Date.parse(value);
    if (Number.isNaN(serverMs) || receivedAt < sentAt) return;
    const low = serverMs - receivedAt;
    const high = serverMs + 1000 - sentAt;
    if (this.low === undefined || this.high === undefined || low > this.high || high < this.low) {
      this.low = low;
      this.high = high;
      return;
    }
    this.low = Math.max(this.low, low);
    this.high = Math.min(this.high, high);
  }
}
