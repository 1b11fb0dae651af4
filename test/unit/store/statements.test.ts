import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStore, keys, type OrderRecord, type Store } from "#src/store/index.js";
import { BOTH_STORES, ngnOrder } from "../../support/store-fixtures.ts";

const T0 = Date.UTC(2026, 10, 1);
const MINUTE = 60_000;

async function readAll(
  store: Store,
  userId: number,
  range: { fromMs: number; toMs: number },
  pageSize: number,
) {
  const pages: OrderRecord[][] = [];
  for await (const page of store.statements.pages(userId, range, pageSize)) pages.push(page);
  return pages;
}

describe.each(BOTH_STORES)("order statements on %s", (_name, connect) => {
  let redis: Redis;
  let store: Store;
  let clock = T0;
  beforeAll(async () => {
    redis = await connect();
    store = createStore(redis, () => clock);
  });
  beforeEach(async () => {
    await redis.flushdb();
  });
  afterAll(async () => {
    await redis.quit();
  });

  /** Orders of user 42 made at the given minutes after T0 (several in one millisecond share a minute). */
  async function seed(minutes: number[]): Promise<string[]> {
    const ids: string[] = [];
    for (const [index, minute] of minutes.entries()) {
      clock = T0 + minute * MINUTE;
      const id = `o${String(index).padStart(3, "0")}`;
      await store.orders.create(ngnOrder(id));
      ids.push(id);
    }
    return ids;
  }

  it("pages a period's orders newest first, each once, including many made in the same millisecond", async () => {
    // Seven orders in one millisecond span three pages: each next page goes on inside that millisecond.
    await seed([0, 1, 2, 2, 2, 2, 2, 2, 2, 3, 4, 5, 6]);
    const pages = await readAll(store, 42, { fromMs: T0 + MINUTE, toMs: T0 + 6 * MINUTE }, 3);
    const read = pages.flat().map((order) => order.orderId);
    expect(pages.map((page) => page.length)).toEqual([3, 3, 3, 2]);
    // From included, to excluded; ties in reverse id order (the index's order), as history lists them.
    expect(read).toEqual([
      "o011",
      "o010",
      "o009",
      ...["o008", "o007", "o006", "o005", "o004", "o003", "o002"],
      "o001",
    ]);
    expect(await readAll(store, 42, { fromMs: 0, toMs: T0 }, 3)).toEqual([]);
    expect(await readAll(store, 43, { fromMs: 0, toMs: T0 + 60 * MINUTE }, 3)).toEqual([]);
  });

  it("an order dropped from the index between pages moves no later order out of reach", async () => {
    const ids = await seed([0, 1, 2, 3, 4, 5]);
    const seen: string[] = [];
    for await (const page of store.statements.pages(42, { fromMs: 0, toMs: T0 + 60 * MINUTE }, 2)) {
      seen.push(...page.map((order) => order.orderId));
      // What the retention sweep does to an order that ended unpaid: it leaves the history index.
      if (seen.length === 2) await redis.zrem(keys.userOrders(42), ids[5]!);
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it("leaves out ids whose record is gone", async () => {
    const ids = await seed([0, 1, 2]);
    await redis.del(keys.order(ids[1]!));
    const read = (await readAll(store, 42, { fromMs: 0, toMs: T0 + 60 * MINUTE }, 10)).flat();
    expect(read.map((order) => order.orderId)).toEqual([ids[2], ids[0]]);
  });

  it("one export per user at a time: a claim held is refused, released is free again, and it lapses", async () => {
    const first = await store.statements.claim(42);
    expect(first).toBeDefined();
    expect(await store.statements.claim(42)).toBeUndefined();
    const other = await store.statements.claim(43);
    expect(other).toBeDefined();
    const ttl = await redis.pttl(keys.userStatement(42));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await first?.release();
    const again = await store.statements.claim(42);
    expect(again).toBeDefined();
    await again?.release();
    await other?.release();
    expect(await redis.exists(keys.userStatement(42), keys.userStatement(43))).toBe(0);
  });
});
