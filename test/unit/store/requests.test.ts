import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { keys } from "#src/store/keys.js";
import {
  MAX_OPEN_REQUESTS,
  type NewMoneyRequest,
  RequestLimitError,
  RequestRepository,
} from "#src/store/requests.js";
import { freshRedis } from "../../support/redis.ts";

const DAY = 24 * 3600 * 1000;
const T0 = Date.parse("2026-03-02T08:00:00Z");

function input(userId = 501): NewMoneyRequest {
  return {
    userId,
    chatId: userId,
    corridor: "KE",
    beneficiary: {
      identifierType: "paytophone",
      identifiers: { phoneNumber: "+254790000000", accountName: "Jane Wanjiku", network: "mpesa" },
    },
    label: "M-Pesa ••0000 · Jane Wanjiku",
    name: "Jane Wanjiku",
    amount: { amount: 150_000, currency: "KESCENT" },
  };
}

describe("money request repository", () => {
  let redis: Redis;
  let requests: RequestRepository;
  beforeAll(async () => {
    redis = await freshRedis();
    requests = new RequestRepository(redis);
  });
  beforeEach(async () => {
    await redis.flushdb();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("names a request by 128 random bits in base64url; the link payload holds nothing else", async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 20; i += 1) {
      const request = await requests.create(input(600 + i), T0, 7 * DAY);
      expect(request.token).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(request.token, "base64url")).toHaveLength(16);
      expect(request.token).not.toContain("254790");
      tokens.add(request.token);
    }
    expect(tokens.size).toBe(20);
  });

  it("stores the request with its deadline on the given clock, and reads it back open", async () => {
    const request = await requests.create(input(), T0, 7 * DAY);
    expect(request.expiresAt).toBe(new Date(T0 + 7 * DAY).toISOString());
    const read = await requests.read(request.token, T0 + DAY);
    expect(read?.request).toEqual(request);
    expect(read?.status).toEqual({ state: "open" });
    // The record outlives the deadline so a late payer reads "expired", not "unknown".
    expect(await redis.pttl(keys.moneyRequest(request.token))).toBeGreaterThan(7 * DAY);
  });

  it("reads an unknown or malformed token as unknown without touching Redis keys it does not own", async () => {
    expect(await requests.read("A".repeat(22), T0)).toBeUndefined();
    expect(await requests.read("../../etc", T0)).toBeUndefined();
    expect(await requests.get(`${"a".repeat(22)}x`)).toBeUndefined();
    expect(await requests.claim("B".repeat(22), "order-1", T0 + 60_000, T0)).toBe("gone");
  });

  it("is claimed by one order at a time, and a second payer is told it is being paid, then paid", async () => {
    const request = await requests.create(input(), T0, 7 * DAY);
    const hold = T0 + 10 * 60_000;
    const [first, second] = await Promise.all([
      requests.claim(request.token, "order-A", hold, T0),
      requests.claim(request.token, "order-B", hold, T0),
    ]);
    expect([first, second].sort()).toEqual(["ok", "pending"]);
    const winner = first === "ok" ? "order-A" : "order-B";
    // The same order claiming again (a redelivered Confirm) is not a second payment.
    expect(await requests.claim(request.token, winner, hold, T0 + 1000)).toBe("ok");
    expect((await requests.read(request.token, T0))?.status).toEqual({
      state: "pending",
      orderId: winner,
      holdUntilMs: hold,
    });
    expect(await requests.markPaid(request.token, winner)).toBe(1);
    expect(await requests.markPaid(request.token, winner)).toBe(0);
    expect(await requests.claim(request.token, "order-C", hold, T0 + 60 * 60_000)).toBe("paid");
    expect(await requests.markPaid(request.token, "order-C")).toBe(-1);
    expect((await requests.read(request.token, T0))?.status).toEqual({ state: "paid", orderId: winner });
  });

  it("many payers at once: exactly one claim wins", async () => {
    const request = await requests.create(input(), T0, 7 * DAY);
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => requests.claim(request.token, `order-${i}`, T0 + 60_000, T0)),
    );
    expect(results.filter((result) => result === "ok")).toHaveLength(1);
    expect(results.filter((result) => result === "pending")).toHaveLength(24);
  });

  it("a hold whose quote ran out unpaid is taken over by the next payer", async () => {
    const request = await requests.create(input(), T0, 7 * DAY);
    expect(await requests.claim(request.token, "order-A", T0 + 60_000, T0)).toBe("ok");
    expect(await requests.claim(request.token, "order-B", T0 + 120_000, T0 + 30_000)).toBe("pending");
    expect((await requests.read(request.token, T0 + 61_000))?.status).toEqual({ state: "open" });
    expect(await requests.claim(request.token, "order-B", T0 + 180_000, T0 + 61_000)).toBe("ok");
  });

  it("expires on the given clock: no claim and no cancel after the deadline", async () => {
    const request = await requests.create(input(), T0, 7 * DAY);
    const late = T0 + 7 * DAY;
    expect((await requests.read(request.token, late))?.status).toEqual({ state: "expired" });
    expect(await requests.claim(request.token, "order-A", late + 60_000, late)).toBe("expired");
    expect(await requests.cancel(request, late)).toBe("expired");
  });

  it("is cancelled by its requester unless a payer holds it or it is paid", async () => {
    const open = await requests.create(input(), T0, 7 * DAY);
    expect(await requests.cancel(open, T0)).toBe("cancelled");
    expect(await requests.cancel(open, T0)).toBe("cancelled");
    expect(await requests.claim(open.token, "order-A", T0 + 60_000, T0)).toBe("cancelled");
    expect((await requests.read(open.token, T0))?.status).toEqual({ state: "cancelled" });

    const held = await requests.create(input(), T0, 7 * DAY);
    await requests.claim(held.token, "order-B", T0 + 60_000, T0);
    expect(await requests.cancel(held, T0 + 1000)).toBe("pending");
    await requests.markPaid(held.token, "order-B");
    expect(await requests.cancel(held, T0 + 1000)).toBe("paid");
    // Cancelling keeps the key's lifetime.
    expect(await redis.pttl(keys.moneyRequestState(open.token))).toBeGreaterThan(7 * DAY);
  });

  it("lists a user's newest requests with their states, and caps open ones", async () => {
    const first = await requests.create(input(), T0, 7 * DAY);
    const second = await requests.create(input(), T0 + 1000, 7 * DAY);
    await requests.cancel(first, T0 + 2000);
    await requests.create(input(777), T0, 7 * DAY);
    const listed = await requests.listForUser(501, T0 + 3000);
    expect(listed.map(({ request, status }) => [request.token, status.state])).toEqual([
      [second.token, "open"],
      [first.token, "cancelled"],
    ]);
    // The cancelled first one does not count: 1 + 19 more reach the cap.
    const more = [];
    for (let i = 0; i < MAX_OPEN_REQUESTS - 1; i += 1)
      more.push(await requests.create(input(), T0 + 4000, 7 * DAY));
    await expect(requests.create(input(), T0 + 5000, 7 * DAY)).rejects.toBeInstanceOf(RequestLimitError);
    // A paid one and a cancelled one make room, one each.
    await requests.claim(more[0]!.token, "order-P", T0 + 60_000, T0 + 5000);
    await requests.markPaid(more[0]!.token, "order-P");
    await requests.create(input(), T0 + 6000, 7 * DAY);
    await requests.cancel(more[1]!, T0 + 6000);
    await requests.create(input(), T0 + 7000, 7 * DAY);
    await expect(requests.create(input(), T0 + 8000, 7 * DAY)).rejects.toBeInstanceOf(RequestLimitError);
    // Once the old ones are past their deadline there is room again.
    await expect(requests.create(input(), T0 + 8 * DAY, 7 * DAY)).resolves.toMatchObject({ userId: 501 });
  });

  it("remembers which stages the requester was told, once each", async () => {
    const request = await requests.create(input(), T0, 7 * DAY);
    expect(await requests.wasTold(request.token, "payment_received")).toBe(false);
    await requests.markTold(request.token, "payment_received", T0);
    expect(await requests.wasTold(request.token, "payment_received")).toBe(true);
    expect(await requests.wasTold(request.token, "completed")).toBe(false);
    expect(await redis.pttl(keys.moneyRequestTold(request.token))).toBeGreaterThan(0);
  });
});
