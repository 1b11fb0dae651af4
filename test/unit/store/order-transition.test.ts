import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStore, keys, type Store } from "#src/store/index.js";
import { BOTH_STORES, ngnOrder } from "../../support/store-fixtures.ts";

const order = ngnOrder("ord-1");

describe.each(BOTH_STORES)("order transition on %s", (_name, connect) => {
  let redis: Redis;
  let store: Store;
  beforeAll(async () => {
    redis = await connect();
    store = createStore(redis);
  });
  beforeEach(async () => {
    await redis.flushdb();
    await store.orders.create(order);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("annotates from the text the update last read or wrote, and still keeps another process's change", async () => {
    // The compare-and-set script cached by the server, so each run of it is one EVALSHA.
    await store.orders.annotate("ord-1", { quoteMessageId: 1 });
    const sent: string[] = [];
    const send = redis.sendCommand?.bind(redis);
    const { run } = await store.updateReads.begin({
      userId: 42,
      sessionKey: "42",
      conversationKey: "conv:42",
    });
    await run(async () => {
      await store.orders.create(ngnOrder("ord-2"));
      if (send)
        redis.sendCommand = ((command: { name: string }, stream?: unknown) => {
          sent.push(command.name);
          return send(command as never, stream as never);
        }) as typeof redis.sendCommand;
      await store.orders.annotate("ord-2", { quoteMessageId: 7 });
      // Another process moves the order meanwhile: the guess fails its compare-and-set, the change is kept.
      await createStore(redis).orders.transition("ord-2", { stage: "payment_received" });
      const annotated = await store.orders.annotate("ord-2", { statusMessageId: 8 });
      expect(annotated).toMatchObject({ stage: "payment_received", quoteMessageId: 7, statusMessageId: 8 });
      // A read is never served from the update's copy.
      await createStore(redis).orders.transition("ord-2", { stage: "payout_sent" });
      expect((await store.orders.get("ord-2"))?.stage).toBe("payout_sent");
    });
    if (send) {
      redis.sendCommand = send;
      // The first annotate guessed right (no read); the transition outside read and swapped; the second annotate
      // guessed wrong, read and swapped; the next transition outside read and swapped; then the read.
      expect(sent).toEqual([
        "evalsha",
        "get",
        "evalsha",
        "evalsha",
        "get",
        "evalsha",
        "get",
        "evalsha",
        "get",
      ]);
    }
    expect(await store.orders.get("ord-2")).toMatchObject({ quoteMessageId: 7, statusMessageId: 8 });
  });

  it("applies the transition with the read it was given", async () => {
    const read = await store.orders.getWithRaw("ord-1");
    expect(read?.order.stage).toBe("awaiting_payment");
    const result = await store.orders.transition(
      "ord-1",
      { stage: "payment_received" },
      { known: read?.raw },
    );
    expect(result?.changed).toBe(true);
    expect((await store.orders.get("ord-1"))?.stage).toBe("payment_received");
  });

  it("reads again when the order changed after that read, and never moves it back", async () => {
    const stale = await store.orders.getWithRaw("ord-1");
    await store.orders.transition("ord-1", { stage: "completed" });
    const late = await store.orders.transition("ord-1", { stage: "payment_received" }, { known: stale?.raw });
    expect(late?.changed).toBe(false);
    expect(late?.order.stage).toBe("completed");
    expect((await store.orders.get("ord-1"))?.stage).toBe("completed");
  });

  it("keeps what another writer added after that read", async () => {
    const stale = await store.orders.getWithRaw("ord-1");
    await store.orders.annotate("ord-1", { statusMessageId: 77 });
    await store.orders.transition("ord-1", { stage: "payment_received" }, { known: stale?.raw });
    const now = await store.orders.get("ord-1");
    expect(now?.stage).toBe("payment_received");
    expect(now?.statusMessageId).toBe(77);
  });

  it("schedules the reconciler's next look and restarts its backoff in the same script, only when the order moved", async () => {
    await store.reconcileAttempts.next("ord-1");
    await store.reconcileAttempts.next("ord-1");
    const seen: string[] = [];
    const moved = await store.orders.transition(
      "ord-1",
      { stage: "payment_received" },
      {
        followUpAt: (next) => {
          seen.push(next.stage);
          return 1_234_567;
        },
      },
    );
    expect(moved?.changed).toBe(true);
    expect(seen).toEqual(["payment_received"]);
    expect(await redis.zscore(keys.ordersOpen(), "ord-1")).toBe("1234567");
    expect(await redis.exists(keys.reconcileAttempts("ord-1"))).toBe(0);

    await store.reconcileAttempts.next("ord-1");
    const same = await store.orders.transition(
      "ord-1",
      { stage: "payment_received" },
      { followUpAt: () => 9_999_999 },
    );
    expect(same?.changed).toBe(false);
    expect(await redis.zscore(keys.ordersOpen(), "ord-1")).toBe("1234567");
    expect(await redis.get(keys.reconcileAttempts("ord-1"))).toBe("1");

    // A terminal stage leaves the open set; no follow-up asked, none added back.
    await store.orders.transition("ord-1", { stage: "completed" }, { followUpAt: () => undefined });
    expect(await redis.zscore(keys.ordersOpen(), "ord-1")).toBeNull();
  });

  it("records the states the change shows in the outbox, with the webhook's mark, in the change's own script", async () => {
    const read = await store.orders.getWithRaw("ord-1");
    const mark = { key: keys.dedupe("digest-1"), ttlSeconds: 600 };
    const sent: string[] = [];
    const send = redis.sendCommand?.bind(redis);
    // The in-memory stand-in may not route commands through sendCommand: then only what was written is checked.
    const counted = send !== undefined;
    if (send)
      redis.sendCommand = ((command: { name: string }, stream?: unknown) => {
        sent.push(command.name);
        return send(command as never, stream as never);
      }) as typeof redis.sendCommand;
    const statesSeen: string[] = [];
    const moved = await store.orders.transition(
      "ord-1",
      { stage: "payment_received" },
      {
        known: read?.raw,
        record: {
          states: ({ order, previousStage }) => {
            statesSeen.push(`${previousStage}→${order.stage}`);
            return [{ state: order }];
          },
          mark,
        },
      },
    );
    if (send) redis.sendCommand = send;
    expect(moved).toMatchObject({ changed: true, appended: 1, previousStage: "awaiting_payment" });
    expect(statesSeen).toEqual(["awaiting_payment→payment_received"]);
    // One command: the compare-and-set, the record and the mark (the script is cached by the earlier tests' runs).
    if (counted) expect(sent).toEqual(sent.length === 1 ? ["evalsha"] : ["evalsha", "eval"]);
    expect((await store.outbox.pending("ord-1")).entries.map((entry) => entry.stage)).toEqual([
      "payment_received",
    ]);
    expect(await redis.get(mark.key)).toBe("1");
    expect((await redis.zscore(keys.outboxDue(), "ord-1")) !== null).toBe(true);

    // Nothing changes (a repeat under another identity): the state is recorded alone (nothing new), and marked.
    const again = { key: keys.dedupe("digest-2"), ttlSeconds: 600 };
    const same = await store.orders.transition(
      "ord-1",
      { stage: "payment_received" },
      { record: { states: ({ order }) => [{ state: order }], mark: again } },
    );
    expect(same).toMatchObject({ changed: false, appended: 0 });
    expect(await redis.get(again.key)).toBe("1");

    // The order changed after the read the transition was given: it reads again, and records what it wrote.
    const stale = await store.orders.getWithRaw("ord-1");
    await store.orders.annotate("ord-1", { statusMessageId: 5 });
    const late = await store.orders.transition(
      "ord-1",
      { stage: "completed" },
      { known: stale?.raw, record: { states: ({ order }) => [{ state: order }] } },
    );
    expect(late).toMatchObject({
      changed: true,
      appended: 1,
      order: { stage: "completed", statusMessageId: 5 },
    });
    expect((await store.outbox.pending("ord-1")).entries.map((entry) => entry.stage)).toEqual([
      "payment_received",
      "completed",
    ]);
  });

  it("never adds an order the open set no longer holds", async () => {
    await redis.zrem(keys.ordersOpen(), "ord-1");
    await store.orders.transition("ord-1", { stage: "payment_received" }, { followUpAt: () => 42 });
    expect(await redis.zscore(keys.ordersOpen(), "ord-1")).toBeNull();
  });
});
