import { describeStatus, TelegramApiError } from "./errors.ts";

export interface FaultSpec {
  /** Method name, case-insensitive; "*" for every method except getUpdates. */
  method: string;
  /** HTTP status and error_code, e.g. 429, 500, 502, 400, 403. Ignored when `networkError` is set. */
  status?: number;
  description?: string;
  /** For 429: the retry_after seconds. */
  retryAfter?: number;
  /** How many calls fail (default 1; Infinity for "until removed"). */
  times?: number;
  /** Only calls to this chat. */
  chatId?: number;
  /** Only calls whose parameters match. */
  when?: (params: Record<string, unknown>) => boolean;
  /** "before" (default): the call fails and nothing happens. "after": it takes effect, then the answer fails. */
  phase?: "before" | "after";
  /** Drop the connection instead of answering (a network error for the client). */
  networkError?: boolean;
  /**
   * Hold the call this long, then run it normally (a slow Telegram), or drop the connection with `networkError`
   * (a call that never took effect); `status` is ignored.
   */
  delayMs?: number;
}

export interface Fault {
  readonly spec: FaultSpec;
  /** Calls this fault has failed so far. */
  readonly hits: number;
  readonly remaining: number;
  remove(): void;
}

type FaultOutcome =
  | { kind: "error"; error: TelegramApiError }
  | { kind: "network" }
  | { kind: "delay"; ms: number; drop: boolean };

/** Per-method fault injection, consumed in the order faults were added. */
export class FaultInjector {
  private readonly faults: { spec: FaultSpec; hits: number; remaining: number }[] = [];

  add(spec: FaultSpec): Fault {
    const entry = { spec, hits: 0, remaining: spec.times ?? 1 };
    this.faults.push(entry);
    const faults = this.faults;
    return {
      spec,
      get hits() {
        return entry.hits;
      },
      get remaining() {
        return entry.remaining;
      },
      remove() {
        const index = faults.indexOf(entry);
        if (index >= 0) faults.splice(index, 1);
      },
    };
  }

  clear(): void {
    this.faults.length = 0;
  }

  get active(): number {
    return this.faults.filter((fault) => fault.remaining > 0).length;
  }

  /** The fault (if any) for this call in this phase; consumes one use of it. */
  take(method: string, params: Record<string, unknown>, phase: "before" | "after"): FaultOutcome | undefined {
    const name = method.toLowerCase();
    for (const fault of this.faults) {
      const { spec } = fault;
      if (fault.remaining <= 0 || (spec.phase ?? "before") !== phase) continue;
      if (spec.method === "*" ? name === "getupdates" : spec.method.toLowerCase() !== name) continue;
      if (spec.chatId !== undefined && Number(params.chat_id) !== spec.chatId) continue;
      if (spec.when && !spec.when(params)) continue;
      fault.remaining -= 1;
      fault.hits += 1;
      if (spec.delayMs !== undefined)
        return { kind: "delay", ms: spec.delayMs, drop: spec.networkError === true };
      if (spec.networkError) return { kind: "network" };
      const status = spec.status ?? 500;
      if (status === 429) {
        const retryAfter = spec.retryAfter ?? 1;
        return {
          kind: "error",
          error: new TelegramApiError(
            429,
            spec.description ?? `Too Many Requests: retry after ${retryAfter}`,
            {
              retry_after: retryAfter,
            },
          ),
        };
      }
      return {
        kind: "error",
        error: new TelegramApiError(status, spec.description ?? describeStatus(status)),
      };
    }
    return undefined;
  }
}
