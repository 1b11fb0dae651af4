import { formatMoney } from "#src/money/index.js";
import type { PaymentLinkRecord } from "#src/store/index.js";

/** The most links one view reads (newest first); older ones are past any range the page offers. */
export const MAX_LINKS = 500;
/** Rows in one response; totals still cover the whole filter. */
export const MAX_ROWS = 200;
const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
const CHART_DAYS = 14;
const STATUSES = new Set(["active", "paid", "settled"]);

export interface LinkFilter {
  fromMs: number;
  toMs: number;
  status?: PaymentLinkRecord["status"];
  ref?: string;
}

/** Query parameters → a bounded filter (default: the last 30 days); undefined when they make no sense. */
export function parseFilter(query: URLSearchParams, now: number): LinkFilter | undefined {
  const day = (value: string | null, fallback: number) =>
    value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : fallback;
  const fromMs = day(query.get("from"), Math.floor(now / DAY_MS) * DAY_MS - 29 * DAY_MS);
  const toMs = day(query.get("to"), Math.floor(now / DAY_MS) * DAY_MS) + DAY_MS;
  if (!Number.isFinite(fromMs) || !Number.isFinite(toMs) || toMs <= fromMs) return undefined;
  if (toMs - fromMs > MAX_RANGE_DAYS * DAY_MS) return undefined;
  const status = query.get("status") ?? "";
  const ref = (query.get("ref") ?? "").slice(0, 64);
  return {
    fromMs,
    toMs,
    ...(STATUSES.has(status) ? { status: status as LinkFilter["status"] } : {}),
    ...(ref ? { ref } : {}),
  };
}

/** The days a filter covers (both inclusive), so the page can show the period the server applied. */
export function periodOf(filter: LinkFilter): { from: string; to: string } {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: day(filter.fromMs), to: day(filter.toMs - DAY_MS) };
}

export function applyFilter(links: PaymentLinkRecord[], filter: LinkFilter): PaymentLinkRecord[] {
  return links.filter((link) => {
    const at = Date.parse(link.createdAt);
    if (at < filter.fromMs || at >= filter.toMs) return false;
    if (filter.status && link.status !== filter.status) return false;
    return !filter.ref || link.ref === filter.ref;
  });
}

export interface LinkRow {
  ref: string;
  name: string;
  status: PaymentLinkRecord["status"];
  statusText: string;
  amount: string;
  sats: string;
  createdAt: string;
  date: string;
}

/** One row as the page shows it and the CSV holds it: the same text in both. */
export function toRow(link: PaymentLinkRecord, t: (key: string) => string, locale: string): LinkRow {
  return {
    ref: link.ref,
    name: link.name,
    status: link.status,
    statusText: t(`merchant:status.${link.status}`),
    amount: formatMoney(link.amount, "NGNKOBO", locale),
    sats: link.receivedSats === undefined ? "—" : formatMoney(link.receivedSats, "BTCSAT", locale),
    createdAt: link.createdAt,
    date: link.createdAt.slice(0, 10),
  };
}

/** Totals of the filter: count, naira asked, naira paid (paid or settled), sats received. */
export function totals(links: PaymentLinkRecord[], locale: string) {
  const paid = links.filter((link) => link.status !== "active");
  const kobo = paid.reduce((sum, link) => sum + link.amount, 0);
  const sats = links.reduce((sum, link) => sum + (link.receivedSats ?? 0), 0);
  return {
    count: links.length,
    paidCount: paid.length,
    paid: formatMoney(kobo, "NGNKOBO", locale),
    sats: formatMoney(sats, "BTCSAT", locale),
  };
}

/** Paid naira per day for the last 14 days (oldest first), in kobo. */
export function chart(links: PaymentLinkRecord[], now: number): { day: string; kobo: number }[] {
  const start = Math.floor(now / DAY_MS) * DAY_MS - (CHART_DAYS - 1) * DAY_MS;
  const days = Array.from({ length: CHART_DAYS }, (_, i) => ({
    day: new Date(start + i * DAY_MS).toISOString().slice(0, 10),
    kobo: 0,
  }));
  for (const link of links) {
    if (link.status === "active") continue;
    const index = Math.floor((Date.parse(link.createdAt) - start) / DAY_MS);
    const bucket = days[index];
    if (bucket) bucket.kobo += link.amount;
  }
  return days;
}
