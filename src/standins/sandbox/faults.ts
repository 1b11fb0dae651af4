import { z } from "zod";
import { badRequest, parseWith } from "./http/errors.ts";

/**
 * Injected failures (POST /_sandbox/faults). Each fault fires `times` times, then disappears.
 * - "500" / "429": the matching API request is answered with that status before it does anything.
 * - "hang": the request is never answered (the socket is closed when the sandbox closes).
 * - "500-after": the request is processed (state changes, events fire) but answered 500, to test
 *   that clients never blindly retry money actions.
 * - "duplicate-webhooks": the next `times` webhook events are each delivered twice.
 * - "delay": the request waits `delayMs`, then is processed and answered normally (a slow API; the work is done
 *   even when the client gave up meanwhile, as a real server would).
 */
const FAULT_MODES = ["500", "429", "hang", "500-after", "duplicate-webhooks", "delay"] as const;
type FaultMode = (typeof FAULT_MODES)[number];

interface Fault {
  id: number;
  mode: FaultMode;
  method?: string;
  path?: string;
  remaining: number;
  delayMs?: number;
}

const faultSchema = z.object({
  endpoint: z.string().trim().optional(),
  mode: z.enum(FAULT_MODES),
  times: z.number().int().min(1).max(10_000).default(1),
  delayMs: z.number().int().min(0).max(120_000).default(25_000),
});

export class Faults {
  private faults: Fault[] = [];
  private nextId = 1;

  /** Validate a POST /_sandbox/faults body and register it. */
  add(body: unknown): Fault {
    const spec = parseWith(faultSchema, body);
    let method: string | undefined;
    let path: string | undefined;
    if (spec.mode !== "duplicate-webhooks") {
      const match = /^([A-Za-z]+)\s+(\S+)$/.exec(spec.endpoint ?? "");
      if (!match) throw badRequest('endpoint must look like "POST /quote" (method, space, path)');
      method = (match[1] ?? "").toUpperCase();
      path = normalisePath(match[2] ?? "");
    }
    const fault: Fault = {
      id: this.nextId++,
      mode: spec.mode,
      method,
      path,
      remaining: spec.times,
      ...(spec.mode === "delay" ? { delayMs: spec.delayMs } : {}),
    };
    this.faults.push(fault);
    return fault;
  }

  /** The fault to apply to an API request, if any (consumes one use). */
  take(method: string, apiPath: string): Fault | undefined {
    const path = normalisePath(apiPath);
    const fault = this.faults.find(
      (candidate) =>
        candidate.mode !== "duplicate-webhooks" &&
        candidate.method === method &&
        (candidate.path === path || candidate.path === "*"),
    );
    if (fault) this.consume(fault);
    return fault;
  }

  /** True when the next webhook event must be delivered twice (consumes one use). */
  takeDuplicateWebhook(): boolean {
    const fault = this.faults.find((candidate) => candidate.mode === "duplicate-webhooks");
    if (fault) this.consume(fault);
    return fault !== undefined;
  }

  list(): Fault[] {
    return this.faults.map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.faults = [];
  }

  private consume(fault: Fault): void {
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((candidate) => candidate !== fault);
  }
}

function normalisePath(path: string): string {
  if (path === "*") return path;
  const bare = path.split("?")[0] ?? "";
  const withoutPrefix = bare.startsWith("/api/v1/") ? bare.slice("/api/v1".length) : bare;
  const leading = withoutPrefix.startsWith("/") ? withoutPrefix : `/${withoutPrefix}`;
  return leading.length > 1 ? leading.replace(/\/+$/, "") : leading;
}
