import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import {
  type ApprovalPayload,
  type ApprovalRecord,
  type ApprovalResult,
  type ApproveOutcome,
  approvalPayloadSchema,
  approvalResultSchema,
  type RejectOutcome,
  toRecord,
} from "./approval-record.ts";
import { keys } from "./keys.ts";

/**
 * Four-eyes approval requests for treasury withdrawals. Every state change is one Lua script, so two admins
 * pressing at once, a double tap or two bot processes can never both move a request forward: exactly one caller
 * gets "claimed" and may call the API; everyone else is told the state it is in.
 *
 *   pending ──approve by another admin──▶ executing ──▶ done | failed | uncertain
 *      │──reject──▶ rejected
 *      └──expiresAt passed──▶ expired
 */
/** Requests are kept this long after they expire, for the audit trail and late button presses. */
const RETENTION_MS = 7 * 24 * 3600 * 1000;

const APPROVE = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'missing' end
if state ~= 'pending' then return state end
if tonumber(ARGV[2]) >= tonumber(redis.call('HGET', KEYS[1], 'expiresAt')) then
  redis.call('HSET', KEYS[1], 'state', 'expired')
  redis.call('ZREM', KEYS[2], ARGV[3])
  return 'expired'
end
if redis.call('HGET', KEYS[1], 'requestedBy') == ARGV[1] then return 'self' end
redis.call('HSET', KEYS[1], 'state', 'executing', 'decidedBy', ARGV[1], 'decidedAt', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[3])
return 'claimed'
`;

const REJECT = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'missing' end
if state ~= 'pending' then return state end
redis.call('ZREM', KEYS[2], ARGV[3])
if tonumber(ARGV[2]) >= tonumber(redis.call('HGET', KEYS[1], 'expiresAt')) then
  redis.call('HSET', KEYS[1], 'state', 'expired')
  return 'expired'
end
redis.call('HSET', KEYS[1], 'state', 'rejected', 'decidedBy', ARGV[1], 'decidedAt', ARGV[2])
return 'rejected'
`;

const FINISH = `
if redis.call('HGET', KEYS[1], 'state') ~= 'executing' then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'result', ARGV[2])
return 1
`;

const EXPIRE = `
if redis.call('HGET', KEYS[1], 'state') ~= 'pending' then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return 0
end
if tonumber(ARGV[1]) < tonumber(redis.call('HGET', KEYS[1], 'expiresAt')) then return 0 end
redis.call('HSET', KEYS[1], 'state', 'expired')
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
`;

export class ApprovalRepository {
  constructor(private readonly redis: Redis) {}

  async create(input: {
    payload: ApprovalPayload;
    requestedBy: number;
    requesterName: string;
    chatId: number;
    now: number;
    ttlMs: number;
  }): Promise<ApprovalRecord> {
    const id = randomBytes(5).toString("hex");
    const record: ApprovalRecord = {
      id,
      state: "pending",
      payload: approvalPayloadSchema.parse(input.payload),
      requestedBy: input.requestedBy,
      requesterName: input.requesterName,
      chatId: input.chatId,
      createdAt: input.now,
      expiresAt: input.now + input.ttlMs,
    };
    const key = keys.approval(id);
    await this.redis
      .multi()
      .hset(key, {
        state: record.state,
        payload: JSON.stringify(record.payload),
        requestedBy: String(record.requestedBy),
        requesterName: record.requesterName,
        chatId: String(record.chatId),
        createdAt: String(record.createdAt),
        expiresAt: String(record.expiresAt),
      })
      .pexpire(key, input.ttlMs + RETENTION_MS)
      .zadd(keys.approvalsPending(), record.expiresAt, id)
      .exec();
    return record;
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const fields = await this.redis.hgetall(keys.approval(id));
    return toRecord(id, fields);
  }

  async setMessage(id: string, messageId: number): Promise<void> {
    await this.redis.hset(keys.approval(id), "messageId", String(messageId));
  }

  /** The one atomic gate before money moves: only "claimed" may call the API. */
  async approve(id: string, approverId: number, now: number): Promise<ApproveOutcome> {
    return (await this.redis.eval(
      APPROVE,
      2,
      keys.approval(id),
      keys.approvalsPending(),
      String(approverId),
      String(now),
      id,
    )) as ApproveOutcome;
  }

  /** Any admin (the requester too) may reject a pending request. */
  async reject(id: string, by: number, now: number): Promise<RejectOutcome> {
    return (await this.redis.eval(
      REJECT,
      2,
      keys.approval(id),
      keys.approvalsPending(),
      String(by),
      String(now),
      id,
    )) as RejectOutcome;
  }

  /**
   * The second lock before money moves: true for exactly one caller per request, even if the code path that
   * follows a claim ran twice. The API is called only after this returned true.
   */
  async startExecution(id: string, now: number): Promise<boolean> {
    return (await this.redis.hsetnx(keys.approval(id), "executionStartedAt", String(now))) === 1;
  }

  /** Record how the API call ended. Only an executing request can finish (once). */
  async finish(id: string, state: "done" | "failed" | "uncertain", result: ApprovalResult): Promise<boolean> {
    const changed = await this.redis.eval(
      FINISH,
      1,
      keys.approval(id),
      state,
      JSON.stringify(approvalResultSchema.parse(result)),
    );
    return changed === 1;
  }

  async linkTransaction(transactionId: string, id: string): Promise<void> {
    await this.redis.set(keys.approvalByTransaction(transactionId), id, "PX", RETENTION_MS);
  }

  async findByTransaction(transactionId: string): Promise<ApprovalRecord | undefined> {
    const id = await this.redis.get(keys.approvalByTransaction(transactionId));
    return id ? this.get(id) : undefined;
  }

  /** Mark every pending request whose time is up as expired; returns them (to edit their messages). */
  async expireDue(now: number, limit = 50): Promise<ApprovalRecord[]> {
    const ids = await this.redis.zrangebyscore(keys.approvalsPending(), 0, now, "LIMIT", 0, limit);
    const expired: ApprovalRecord[] = [];
    for (const id of ids) {
      const changed = await this.redis.eval(
        EXPIRE,
        2,
        keys.approval(id),
        keys.approvalsPending(),
        String(now),
        id,
      );
      if (changed !== 1) continue;
      const record = await this.get(id);
      if (record) expired.push(record);
    }
    return expired;
  }
}
