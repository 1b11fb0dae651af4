import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import { ORDER_STAGES, type OrderRecord, type OrderStage } from "./order-record.ts";
import type { OrderRepository } from "./orders.ts";

/**
 * Order statistics for ops' /stats, computed by scanning the `orders:all` index (scored by creation time) over
 * the widest window, in pages, and bucketing each order into every window it falls in.
 *
 * Why a scan rather than counters kept up to date by the flows and the events pipeline: the scan reads the same
 * records the bot acts on, so it can never drift from them (no counter to forget in a new code path, no double
 * count on a redelivered event), and "orders by stage" needs the current stage, which counters per day cannot
 * give. Cost: one ZRANGEBYSCORE page plus one MGET per 500 orders of the last 30 days, in bounded memory — fine
 * for an ops command. If volumes grow past that, per-day hashes updated on transition are the next step.
 */
/** How an order was paid for: bitcoin over Lightning, or a naira bank transfer (an NGN-funded payout). */
export type Funding = "lightning" | "naira";

interface CorridorVolume {
  corridor: OrderRecord["corridor"];
  kind: OrderRecord["kind"];
  funding: Funding;
  orders: number;
  completed: number;
  /** Sums over completed orders, per currency code, in minor units. */
  paid: Record<string, number>;
  received: Record<string, number>;
}

export interface WindowStats {
  name: string;
  since: number;
  orders: number;
  byStage: Record<OrderStage, number>;
  corridors: CorridorVolume[];
  /** Naira-funded payouts over every corridor: their count, the completed ones and the kobo they paid in. */
  naira: { orders: number; completed: number; paidKobo: number };
}

/** Orders of one corridor and kind per day (index 0 = the first day), for the /stats chart. */
export interface DailyCorridor {
  corridor: OrderRecord["corridor"];
  kind: OrderRecord["kind"];
  funding: Funding;
  completed: number[];
  failed: number[];
  /** Sums over the completed orders, per currency code, in minor units. */
  paid: Record<string, number>;
  received: Record<string, number>;
}

const PAGE = 500;
const DAY_MS = 24 * 3600 * 1000;

/** The same test as isNairaFunded (src/orders/naira.ts): a payout paid in kobo was paid by bank transfer. */
function fundingOf(order: OrderRecord): Funding {
  return order.kind === "payout" && order.pay.currency === "NGNKOBO" ? "naira" : "lightning";
}

function sameGroup(entry: { corridor: string; kind: string; funding: Funding }, order: OrderRecord): boolean {
  return entry.corridor === order.corridor && entry.kind === order.kind && entry.funding === fundingOf(order);
}

function byGroup(a: CorridorVolume | DailyCorridor, b: CorridorVolume | DailyCorridor): number {
  return (
    a.corridor.localeCompare(b.corridor) || a.kind.localeCompare(b.kind) || a.funding.localeCompare(b.funding)
  );
}

function emptyStages(): Record<OrderStage, number> {
  return Object.fromEntries(ORDER_STAGES.map((stage) => [stage, 0])) as Record<OrderStage, number>;
}

function add(sums: Record<string, number>, currency: string, amount: number): void {
  const next = (sums[currency] ?? 0) + amount;
  // Stay exact: a sum past 2^53 would silently lose units.
  if (!Number.isSafeInteger(next)) throw new RangeError(`volume of ${currency} is too large to add exactly`);
  sums[currency] = next;
}

export class StatsRepository {
  constructor(
    private readonly redis: Redis,
    private readonly orders: OrderRepository,
  ) {}

  /** Stats for each window [since, until]; windows may overlap (today ⊂ 7 days ⊂ 30 days). */
  async orderWindows(windows: Array<{ name: string; since: number }>, until: number): Promise<WindowStats[]> {
    const results: WindowStats[] = windows.map((window) => ({
      ...window,
      orders: 0,
      byStage: emptyStages(),
      corridors: [],
      naira: { orders: 0, completed: 0, paidKobo: 0 },
    }));
    const earliest = Math.min(...windows.map((window) => window.since));
    await scanOrders(this.redis, this.orders, earliest, until, (order) => {
      const created = Date.parse(order.createdAt);
      for (const window of results) if (created >= window.since && created <= until) count(window, order);
    });
    for (const window of results) window.corridors.sort(byGroup);
    return results;
  }

  /**
   * Orders per day over `days` days from `since` (a day is 24 h from `since`, so pass a midnight): completed and
   * failed counts per corridor and kind, and the completed orders' sums. Same scan as orderWindows.
   */
  async dailyOrders(since: number, days: number): Promise<DailyCorridor[]> {
    const corridors: DailyCorridor[] = [];
    await scanOrders(this.redis, this.orders, since, since + days * DAY_MS - 1, (order) => {
      const day = Math.floor((Date.parse(order.createdAt) - since) / DAY_MS);
      if (day < 0 || day >= days || (order.stage !== "completed" && order.stage !== "failed")) return;
      let entry = corridors.find((item) => sameGroup(item, order));
      if (!entry) {
        entry = {
          corridor: order.corridor,
          kind: order.kind,
          funding: fundingOf(order),
          completed: new Array<number>(days).fill(0),
          failed: new Array<number>(days).fill(0),
          paid: {},
          received: {},
        };
        corridors.push(entry);
      }
      if (order.stage === "failed") {
        entry.failed[day] = (entry.failed[day] ?? 0) + 1;
        return;
      }
      entry.completed[day] = (entry.completed[day] ?? 0) + 1;
      add(entry.paid, order.pay.currency, order.pay.amount);
      add(entry.received, order.receive.currency, order.receive.amount);
    });
    return corridors.sort(byGroup);
  }
}

async function scanOrders(
  redis: Redis,
  orders: OrderRepository,
  since: number,
  until: number,
  visit: (order: OrderRecord) => void,
): Promise<void> {
  let offset = 0;
  for (;;) {
    const ids = await redis.zrangebyscore(keys.ordersAll(), since, until, "LIMIT", offset, PAGE);
    if (ids.length === 0) return;
    offset += ids.length;
    for (const order of await orders.getMany(ids)) visit(order);
    if (ids.length < PAGE) return;
  }
}

function count(window: WindowStats, order: OrderRecord): void {
  window.orders += 1;
  window.byStage[order.stage] += 1;
  const funding = fundingOf(order);
  let volume = window.corridors.find((entry) => sameGroup(entry, order));
  if (!volume) {
    const { corridor, kind } = order;
    volume = { corridor, kind, funding, orders: 0, completed: 0, paid: {}, received: {} };
    window.corridors.push(volume);
  }
  volume.orders += 1;
  if (funding === "naira") window.naira.orders += 1;
  if (order.stage !== "completed") return;
  volume.completed += 1;
  if (funding === "naira") {
    window.naira.completed += 1;
    const paidKobo = window.naira.paidKobo + order.pay.amount;
    if (!Number.isSafeInteger(paidKobo)) throw new RangeError("naira volume is too large to add exactly");
    window.naira.paidKobo = paidKobo;
  }
  add(volume.paid, order.pay.currency, order.pay.amount);
  add(volume.received, order.receive.currency, order.receive.amount);
}
