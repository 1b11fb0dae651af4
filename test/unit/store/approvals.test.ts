import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalPayload } from "#src/store/approval-record.js";
import { ApprovalRepository } from "#src/store/approvals.js";
import { freshRedis } from "../../support/redis.ts";

/** The four-eyes gate of treasury withdrawals, against a real Redis with explicit clock values. */
const PAYLOAD: ApprovalPayload = {
  kind: "withdraw_ngn",
  amount: 25_000_000,
  beneficiary: {
    bankAccountNumber: "0149200000",
    bankAccountName: "OLADEJI OLAOLU",
    bankCode: "000013",
    bankName: "GTBANK PLC",
  },
};
const T0 = 1_700_000_000_000;
const TTL = 15 * 60_000;
const REQUESTER = 101;
const SECOND = 202;
const THIRD = 303;

describe("approval requests", () => {
  let redis: Redis;
  let approvals: ApprovalRepository;
  beforeAll(async () => {
    redis = await freshRedis();
    approvals = new ApprovalRepository(redis);
  });
  beforeEach(async () => {
    await redis.flushdb();
  });
  afterAll(async () => {
    await redis.quit();
  });

  const create = () =>
    approvals.create({
      payload: PAYLOAD,
      requestedBy: REQUESTER,
      requesterName: "@ada",
      chatId: -100,
      now: T0,
      ttlMs: TTL,
    });

  it("stores the request as pending with its expiry and reads it back", async () => {
    const record = await create();
    expect(record.id).toMatch(/^[0-9a-f]{10}$/);
    const read = await approvals.get(record.id);
    expect(read).toMatchObject({
      state: "pending",
      payload: PAYLOAD,
      requestedBy: REQUESTER,
      chatId: -100,
      createdAt: T0,
      expiresAt: T0 + TTL,
    });
    expect(await redis.pttl(`approval:${record.id}`)).toBeGreaterThan(TTL);
  });

  it("refuses the requester's own approval and lets a second admin claim it", async () => {
    const { id } = await create();
    expect(await approvals.approve(id, REQUESTER, T0 + 1_000)).toBe("self");
    expect((await approvals.get(id))?.state).toBe("pending");
    expect(await approvals.approve(id, SECOND, T0 + 2_000)).toBe("claimed");
    const record = await approvals.get(id);
    expect(record).toMatchObject({ state: "executing", decidedBy: SECOND, decidedAt: T0 + 2_000 });
  });

  it("lets exactly one of many simultaneous approvals win", async () => {
    const { id } = await create();
    const approvers = Array.from({ length: 12 }, (_, index) => 1_000 + index);
    const outcomes = await Promise.all(
      approvers.map((approver) => approvals.approve(id, approver, T0 + 5_000)),
    );
    expect(outcomes.filter((outcome) => outcome === "claimed")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === "executing")).toHaveLength(11);
  });

  it("a claimed request starts executing once, finishes once, and then reports its state", async () => {
    const { id } = await create();
    await approvals.approve(id, SECOND, T0 + 1_000);
    const starts = await Promise.all([1, 2, 3].map(() => approvals.startExecution(id, T0 + 1_001)));
    expect(starts.filter(Boolean)).toHaveLength(1);
    expect(await approvals.finish(id, "done", { transactionId: "tx-1", status: "PENDING" })).toBe(true);
    expect(await approvals.finish(id, "failed", { error: "late" })).toBe(false);
    expect(await approvals.get(id)).toMatchObject({
      state: "done",
      result: { transactionId: "tx-1", status: "PENDING" },
    });
    expect(await approvals.approve(id, THIRD, T0 + 2_000)).toBe("done");
    expect(await approvals.reject(id, THIRD, T0 + 2_000)).toBe("done");
  });

  it("expires: an approval at or after the expiry is refused and marks the request expired", async () => {
    const { id } = await create();
    expect(await approvals.approve(id, SECOND, T0 + TTL)).toBe("expired");
    expect((await approvals.get(id))?.state).toBe("expired");
    expect(await approvals.approve(id, THIRD, T0 + TTL + 1)).toBe("expired");
    expect((await approvals.get(id))?.state).toBe("expired");
  });

  it("the sweep expires only requests whose time is up, once", async () => {
    const early = await create();
    const late = await approvals.create({
      payload: PAYLOAD,
      requestedBy: REQUESTER,
      requesterName: "@ada",
      chatId: -100,
      now: T0 + 10 * 60_000,
      ttlMs: TTL,
    });
    const swept = await approvals.expireDue(T0 + TTL + 1);
    expect(swept.map((record) => record.id)).toEqual([early.id]);
    expect(swept[0]?.state).toBe("expired");
    expect(await approvals.expireDue(T0 + TTL + 2)).toEqual([]);
    expect((await approvals.get(late.id))?.state).toBe("pending");
    expect(await approvals.approve(late.id, SECOND, T0 + TTL + 3)).toBe("claimed");
  });

  it("reject: any admin (the requester too) may reject a pending request; approving afterwards fails", async () => {
    const { id } = await create();
    expect(await approvals.reject(id, REQUESTER, T0 + 1_000)).toBe("rejected");
    expect(await approvals.approve(id, SECOND, T0 + 2_000)).toBe("rejected");
    expect(await approvals.get(id)).toMatchObject({ state: "rejected", decidedBy: REQUESTER });
    expect(await approvals.reject("0000000000", SECOND, T0)).toBe("missing");
    expect(await approvals.approve("0000000000", SECOND, T0)).toBe("missing");
  });

  it("links the API transaction back to its request", async () => {
    const { id } = await create();
    await approvals.linkTransaction("3f1c-tx", id);
    expect((await approvals.findByTransaction("3f1c-tx"))?.id).toBe(id);
    expect(await approvals.findByTransaction("unknown")).toBeUndefined();
  });
});
