import { createHmac, randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Logger } from "#src/log/logger.js";
import type { SandboxClock, Scheduler } from "#src/standins/sandbox/clock.js";

/**
 * Webhook delivery: each event is serialised ONCE as compact JSON; exactly those bytes are POSTed
 * and signed (lowercase hex HMAC-SHA256 with the account secret) in X-Mavapay-Signature and
 * x-webhook-signature. Non-2xx or a timeout is retried with backoff on the sandbox clock
 * (at-least-once). First attempts go out strictly in event order.
 */

interface WebhookTarget {
  url: string;
  secret: string;
  isActive: boolean;
}

interface DeliveryAttempt {
  attempt: number;
  at: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

type DeliveryStatus = "queued" | "delivered" | "retrying" | "failed" | "no-webhook";

export interface DeliveryRecord {
  id: string;
  seq: number;
  event: string;
  url: string | null;
  body: string;
  signature: string;
  createdAt: number;
  attempts: DeliveryAttempt[];
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  duplicateOf: string | null;
}

interface DispatcherOptions {
  clock: SandboxClock;
  scheduler: Scheduler;
  logger: Logger;
  target: () => WebhookTarget;
  /** True when the next event must go out twice (the duplicate-webhooks fault). */
  duplicate: () => boolean;
  timeoutMs: number;
  /** Delay before retry n (sandbox-clock ms); its length + 1 is the attempt limit. */
  backoffMs: readonly number[];
}

export const DEFAULT_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000, 3_600_000] as const;

export function signBody(body: string, secret: string): string {
  return createHmac("sha256", secret).update(body, "utf8").digest("hex");
}

export class WebhookDispatcher {
  private records: DeliveryRecord[] = [];
  private seq = 0;
  private chain: Promise<void> = Promise.resolve();
  private generation = 0;
  private closed = false;
  private readonly inflight = new Set<{ destroy(): void }>();

  constructor(private readonly options: DispatcherOptions) {}

  /** Record and queue one event. Returns its delivery record(s) (two under the duplicate fault). */
  emit(event: string, data: unknown): DeliveryRecord[] {
    const target = this.options.target();
    const body = JSON.stringify({ event, data });
    const signature = signBody(body, target.secret);
    const active = target.isActive && target.url !== "";
    const first = this.record(event, active ? target.url : null, body, signature, null);
    const records = [first];
    if (active && this.options.duplicate()) {
      records.push(this.record(event, target.url, body, signature, first.id));
    }
    for (const record of records) {
      if (record.url === null) continue;
      const generation = this.generation;
      this.chain = this.chain.then(() => this.attempt(record, generation));
    }
    return records;
  }

  log(): readonly DeliveryRecord[] {
    return this.records;
  }

  reset(): void {
    this.generation += 1;
    this.records = [];
    this.chain = Promise.resolve();
  }

  close(): void {
    this.closed = true;
    this.generation += 1;
    for (const request of this.inflight) request.destroy();
    this.inflight.clear();
  }

  private record(
    event: string,
    url: string | null,
    body: string,
    signature: string,
    duplicateOf: string | null,
  ): DeliveryRecord {
    const record: DeliveryRecord = {
      id: randomUUID(),
      seq: ++this.seq,
      event,
      url,
      body,
      signature,
      createdAt: this.options.clock.now(),
      attempts: [],
      status: url === null ? "no-webhook" : "queued",
      nextAttemptAt: url === null ? null : this.options.clock.now(),
      duplicateOf,
    };
    this.records.push(record);
    return record;
  }

  private async attempt(record: DeliveryRecord, generation: number): Promise<void> {
    if (this.closed || generation !== this.generation || record.url === null) return;
    const startedAt = this.options.clock.now();
    const startedReal = performance.now();
    const outcome = await this.post(record.url, record.body, record.signature);
    if (this.closed || generation !== this.generation) return;
    record.attempts.push({
      attempt: record.attempts.length + 1,
      at: startedAt,
      statusCode: outcome.statusCode,
      error: outcome.error,
      durationMs: Math.round(performance.now() - startedReal),
    });
    const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    if (ok) {
      record.status = "delivered";
      record.nextAttemptAt = null;
      return;
    }
    const delay = this.options.backoffMs[record.attempts.length - 1];
    if (delay === undefined) {
      record.status = "failed";
      record.nextAttemptAt = null;
      this.options.logger.warn({ event: record.event, id: record.id }, "webhook delivery gave up");
      return;
    }
    record.status = "retrying";
    record.nextAttemptAt = this.options.clock.now() + delay;
    this.options.scheduler.schedule(record.nextAttemptAt, `webhook retry ${record.id}`, () => {
      void this.attempt(record, generation);
    });
  }

  private post(
    url: string,
    body: string,
    signature: string,
  ): Promise<{ statusCode: number | null; error: string | null }> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (statusCode: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inflight.delete(req);
        resolve({ statusCode, error });
      };
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        resolve({ statusCode: null, error: "invalid webhook URL" });
        return;
      }
      const send = target.protocol === "https:" ? httpsRequest : httpRequest;
      const req = send(
        target,
        {
          method: "POST",
          agent: false,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "user-agent": "mavapay-sandbox-webhooks/1",
            "X-Mavapay-Signature": signature,
            "x-webhook-signature": signature,
            connection: "close",
          },
        },
        (res) => {
          res.resume();
          res.on("end", () => finish(res.statusCode ?? null, null));
          res.on("error", (error) => finish(res.statusCode ?? null, error.message));
        },
      );
      const timer = setTimeout(() => {
        req.destroy(new Error(`timeout after ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
      this.inflight.add(req);
      req.on("error", (error) => finish(null, error.message));
      req.end(body);
    });
  }
}
