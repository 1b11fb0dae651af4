import { Pool } from "undici";
import { signWebhookBody } from "#src/events/signature.js";
import { serveParent } from "../lib/child.ts";
import { paymentEventBodies, type SyntheticOrder } from "./events.ts";

/**
 * The payout API's side of the webhook bench, in its own process: POST signed events to /webhooks/payout at a
 * fixed rate (open loop: a slow answer does not slow the schedule, up to `connections` requests in flight) and
 * time each acknowledgement. An order's payment.sent goes out only after its payment.received was acknowledged,
 * as the real sender does (it pays out after the deposit is settled).
 */
export interface SendPlan {
  url: string;
  secret: string;
  run: string;
  orders: SyntheticOrder[];
  ratePerSecond: number;
  connections: number;
  /** payment.sent of order i is scheduled after payment.received of order i + window. */
  window: number;
}

export interface SendReport {
  latenciesMs: number[];
  statuses: Record<string, number>;
  startedAt: number;
  lastAckAt: number;
  /** How late requests left compared with the schedule (ms). */
  lagP99Ms: number;
  sent: number;
  /** Epoch ms (sub-ms) each event was POSTed, by "<order index>:<received|sent>". */
  postedAt: Record<string, number>;
}

interface Item {
  body: string;
  signature: string;
  order: number;
  kind: "received" | "sent";
}

async function send(plan: SendPlan): Promise<SendReport> {
  const target = new URL(plan.url);
  const pool = new Pool(target.origin, { connections: plan.connections });
  const received: Item[] = [];
  const sentItems: Item[] = [];
  for (const order of plan.orders) {
    const [r, s] = paymentEventBodies(order, plan.run);
    received.push({
      body: r,
      signature: signWebhookBody(r, plan.secret),
      order: order.index,
      kind: "received",
    });
    sentItems.push({ body: s, signature: signWebhookBody(s, plan.secret), order: order.index, kind: "sent" });
  }
  // received 0..n-1, with sent i after received i + window.
  const sequence: Item[] = [];
  for (let i = 0; i < received.length; i += 1) {
    sequence.push(received[i]!);
    const due = i - plan.window;
    if (due >= 0) sequence.push(sentItems[due]!);
  }
  for (let i = Math.max(0, received.length - plan.window); i < received.length; i += 1)
    sequence.push(sentItems[i]!);

  const acked = new Set<number>();
  const blocked = new Map<number, Item>();
  const ready: Item[] = [];
  const latenciesMs: number[] = [];
  const lags: number[] = [];
  const statuses: Record<string, number> = {};
  let inFlight = 0;
  let next = 0;
  let dispatched = 0;
  let lastAckAt = 0;
  const total = sequence.length;
  const startedAt = Date.now();
  const t0 = performance.now();

  const postedAt: Record<string, number> = {};
  const post = async (item: Item, plannedAt: number) => {
    inFlight += 1;
    const started = performance.now();
    postedAt[`${item.order}:${item.kind}`] = performance.timeOrigin + started;
    lags.push(Math.max(0, started - plannedAt));
    try {
      const response = await pool.request({
        path: target.pathname,
        method: "POST",
        headers: { "content-type": "application/json", "x-mavapay-signature": item.signature },
        body: item.body,
      });
      const text = await response.body.text();
      const status = (JSON.parse(text) as { status?: string }).status ?? "?";
      const key = `${response.statusCode} ${status}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
    } catch (error) {
      const key = `error ${(error as Error).message.slice(0, 40)}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
    } finally {
      latenciesMs.push(performance.now() - started);
      lastAckAt = Date.now();
      inFlight -= 1;
      // Answered (even with an error, which the report shows): its payment.sent may go now.
      if (item.kind === "received") {
        acked.add(item.order);
        const waiting = blocked.get(item.order);
        if (waiting) {
          blocked.delete(item.order);
          ready.push(waiting);
        }
      }
    }
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.floor(((performance.now() - t0) * plan.ratePerSecond) / 1000);
      while (dispatched < due && inFlight < plan.connections) {
        let item = ready.shift();
        while (!item && next < total) {
          const candidate = sequence[next++]!;
          if (candidate.kind === "sent" && !acked.has(candidate.order))
            blocked.set(candidate.order, candidate);
          else item = candidate;
        }
        if (!item) break;
        const plannedAt = t0 + (dispatched * 1000) / plan.ratePerSecond;
        dispatched += 1;
        void post(item, plannedAt);
      }
      if (latenciesMs.length >= total) return resolve();
      setTimeout(tick, 1);
    };
    tick();
  });
  await pool.close();
  lags.sort((a, b) => a - b);
  return {
    latenciesMs,
    statuses,
    startedAt,
    lastAckAt,
    lagP99Ms: lags[Math.floor(lags.length * 0.99)] ?? 0,
    sent: dispatched,
    postedAt,
  };
}

serveParent({ send: (plan: SendPlan) => send(plan) });
