import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { COUNTRIES } from "#src/corridors/index.js";
import { claimKey } from "./claims.ts";
import { parseJson, readJson } from "./json.ts";
import { keys } from "./keys.ts";
import { type HeldLock, holdLock, lockToken } from "./locks.ts";
import { LuaScript } from "./script.ts";

/**
 * Money requests: someone at home asks for a payout to their own, verified beneficiary; whoever opens the request's
 * link pays it. The token is the request's only name: 16 random bytes in base64url (128 bits, 22 characters), so
 * a link reveals nothing and cannot be guessed. The record never changes after creation; the state lives in its
 * own small key so every change of it is one atomic script (a request is paid at most once).
 */
const moneyRequestSchema = z.object({
  token: z.string(),
  userId: z.number().int(),
  chatId: z.number().int(),
  corridor: z.enum(COUNTRIES),
  /** Exactly what POST /quote gets (for NGN: as name enquiry returned it). Never shown unmasked. */
  beneficiary: z.record(z.string(), z.unknown()),
  /** Masked one-line label ("M-Pesa ••0000 · Jane Wanjiku"). */
  label: z.string(),
  /** The verified (or typed) name of who receives. */
  name: z.string(),
  /** What the beneficiary should receive, in local minor units. */
  amount: z.object({ amount: z.number().int().positive(), currency: z.string() }),
  createdAt: z.string(),
  /** Deadline on the payout API's clock (ISO). */
  expiresAt: z.string(),
});
export type MoneyRequest = z.infer<typeof moneyRequestSchema>;
export type NewMoneyRequest = Omit<MoneyRequest, "token" | "createdAt" | "expiresAt">;

/** What a request is now. */
export type RequestState =
  | { state: "open" }
  | { state: "pending"; orderId: string; holdUntilMs: number }
  | { state: "paid"; orderId: string }
  | { state: "cancelled" }
  | { state: "expired" };

export type ClaimResult = "ok" | "pending" | "paid" | "cancelled" | "expired" | "gone";
type CancelResult = "cancelled" | "pending" | "paid" | "expired" | "gone";

/** The shape of a token (the link's payload after `req_`, callback data). */
export const REQUEST_TOKEN = /[A-Za-z0-9_-]{22}/;
const TOKEN_EXACT = new RegExp(`^${REQUEST_TOKEN.source}$`);

/** Payable requests (before their deadline, not paid, not cancelled) one user may have at a time. */
export const MAX_OPEN_REQUESTS = 20;
/** How long a request's record outlives its deadline (a late payer still reads "expired", /requests lists it). */
const KEEP_AFTER_EXPIRY_MS = 30 * 24 * 3600 * 1000;
/** A notice job's hold on its request (renewed while held): a holder that died frees it after this long. */
const TELLING_LOCK_MS = 30_000;
const LIST_LIMIT = 50;

export class RequestLimitError extends Error {
  constructor(readonly limit: number) {
    super(`at most ${limit} open money requests`);
    this.name = "RequestLimitError";
  }
}

// ARGV: orderId, holdUntilMs, nowMs, expiresMs. A live claim of another order wins; an expired claim (its quote
// deadline passed unpaid) is taken over; the same order claiming again is a repeat, not a second payment.
const CLAIM = new LuaScript(`
local s = redis.call('GET', KEYS[1])
if not s then return 'gone' end
if s == 'cancelled' then return 'cancelled' end
local now = tonumber(ARGV[3])
if string.sub(s, 1, 5) == 'paid|' then
  if string.sub(s, 6) == ARGV[1] then return 'ok' end
  return 'paid'
end
if string.sub(s, 1, 8) == 'pending|' then
  local rest = string.sub(s, 9)
  local sep = string.find(rest, '|', 1, true)
  if string.sub(rest, 1, sep - 1) == ARGV[1] then return 'ok' end
  if tonumber(string.sub(rest, sep + 1)) > now then return 'pending' end
end
if now >= tonumber(ARGV[4]) then return 'expired' end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('SET', KEYS[1], 'pending|' .. ARGV[1] .. '|' .. ARGV[2], 'PX', ttl)
else
  redis.call('SET', KEYS[1], 'pending|' .. ARGV[1] .. '|' .. ARGV[2])
end
return 'ok'
`);

// ARGV: orderId. 1: now paid by this order; 0: it already was; -1: another order paid it (never expected).
const MARK_PAID = new LuaScript(`
local s = redis.call('GET', KEYS[1])
if not s then return 0 end
if s == 'paid|' .. ARGV[1] then return 0 end
if string.sub(s, 1, 5) == 'paid|' then return -1 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('SET', KEYS[1], 'paid|' .. ARGV[1], 'PX', ttl)
else
  redis.call('SET', KEYS[1], 'paid|' .. ARGV[1])
end
return 1
`);

// ARGV: nowMs, expiresMs. A request being paid right now (a live claim) cannot be cancelled under the payer.
const CANCEL = new LuaScript(`
local s = redis.call('GET', KEYS[1])
if not s then return 'gone' end
if s == 'cancelled' then return 'cancelled' end
if string.sub(s, 1, 5) == 'paid|' then return 'paid' end
local now = tonumber(ARGV[1])
if string.sub(s, 1, 8) == 'pending|' then
  local rest = string.sub(s, 9)
  local sep = string.find(rest, '|', 1, true)
  if tonumber(string.sub(rest, sep + 1)) > now then return 'pending' end
end
if now >= tonumber(ARGV[2]) then return 'expired' end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('SET', KEYS[1], 'cancelled', 'PX', ttl)
else
  redis.call('SET', KEYS[1], 'cancelled')
end
return 'cancelled'
`);

function parseState(raw: string | null, expiresMs: number, nowMs: number): RequestState | undefined {
  if (raw === null) return undefined;
  if (raw === "cancelled") return { state: "cancelled" };
  if (raw.startsWith("paid|")) return { state: "paid", orderId: raw.slice(5) };
  if (raw.startsWith("pending|")) {
    const [orderId = "", until = "0"] = raw.slice(8).split("|");
    const holdUntilMs = Number(until);
    if (holdUntilMs > nowMs) return { state: "pending", orderId, holdUntilMs };
  }
  return nowMs >= expiresMs ? { state: "expired" } : { state: "open" };
}

export class RequestRepository {
  constructor(private readonly redis: Redis) {}

  /** A new request, open until `nowMs + ttlMs` (the API's clock). Refused past MAX_OPEN_REQUESTS open ones. */
  async create(input: NewMoneyRequest, nowMs: number, ttlMs: number): Promise<MoneyRequest> {
    const open = await this.openCount(input.userId, nowMs);
    if (open >= MAX_OPEN_REQUESTS) throw new RequestLimitError(MAX_OPEN_REQUESTS);
    const token = randomBytes(16).toString("base64url");
    const expiresMs = nowMs + ttlMs;
    const request: MoneyRequest = {
      ...input,
      token,
      createdAt: new Date(nowMs).toISOString(),
      expiresAt: new Date(expiresMs).toISOString(),
    };
    const keepMs = ttlMs + KEEP_AFTER_EXPIRY_MS;
    await this.redis
      .multi()
      .set(keys.moneyRequest(token), JSON.stringify(request), "PX", keepMs)
      .set(keys.moneyRequestState(token), "open", "PX", keepMs)
      .zadd(keys.userRequests(input.userId), nowMs, `${expiresMs}:${token}`)
      .zremrangebyrank(keys.userRequests(input.userId), 0, -LIST_LIMIT - 1)
      .exec();
    return request;
  }

  /** The request behind a token; anything that is not a token's shape reads as unknown without a lookup. */
  async get(token: string): Promise<MoneyRequest | undefined> {
    if (!TOKEN_EXACT.test(token)) return undefined;
    return readJson(this.redis, keys.moneyRequest(token), moneyRequestSchema);
  }

  /** The request and what it is now (the API's clock decides expiry). */
  async read(
    token: string,
    nowMs: number,
  ): Promise<{ request: MoneyRequest; status: RequestState } | undefined> {
    if (!TOKEN_EXACT.test(token)) return undefined;
    const [raw, state] = await this.redis.mget(keys.moneyRequest(token), keys.moneyRequestState(token));
    const request = parseJson(raw, moneyRequestSchema);
    if (!request) return undefined;
    const status = parseState(state ?? null, Date.parse(request.expiresAt), nowMs);
    return status ? { request, status } : undefined;
  }

  /**
   * Hold the request for one payer's order until `holdUntilMs` (the quote's deadline), atomically: a second payer
   * gets "pending" while the hold lasts and "paid" once the first one's payment arrived.
   */
  async claim(token: string, orderId: string, holdUntilMs: number, nowMs: number): Promise<ClaimResult> {
    const request = await this.get(token);
    if (!request) return "gone";
    return (await CLAIM.run(
      this.redis,
      [keys.moneyRequestState(token)],
      [orderId, holdUntilMs, nowMs, Date.parse(request.expiresAt)],
    )) as ClaimResult;
  }

  /** The payer's payment arrived: paid for good. -1: another order had already paid it. */
  async markPaid(token: string, orderId: string): Promise<-1 | 0 | 1> {
    return (await MARK_PAID.run(this.redis, [keys.moneyRequestState(token)], [orderId])) as -1 | 0 | 1;
  }

  /** The requester withdraws the request (refused while a payer holds it, and once paid or expired). */
  async cancel(request: MoneyRequest, nowMs: number): Promise<CancelResult> {
    return (await CANCEL.run(
      this.redis,
      [keys.moneyRequestState(request.token)],
      [nowMs, Date.parse(request.expiresAt)],
    )) as CancelResult;
  }

  /** The user's newest requests with what each is now. */
  async listForUser(
    userId: number,
    nowMs: number,
    limit = 10,
  ): Promise<{ request: MoneyRequest; status: RequestState }[]> {
    const members = await this.redis.zrevrange(keys.userRequests(userId), 0, limit - 1);
    const found = await Promise.all(members.map((member) => this.read(member.split(":")[1] ?? "", nowMs)));
    return found.filter(
      (entry): entry is { request: MoneyRequest; status: RequestState } => entry?.request.userId === userId,
    );
  }

  /**
   * The right to send the request's notices now, renewed while held; undefined while another job holds it. The
   * payment's notice and the payout's are separate jobs, and a payout that lands right after its payment runs both
   * at once: each would find "paid" not yet told and send it.
   */
  async holdTelling(token: string): Promise<HeldLock | undefined> {
    const key = keys.moneyRequestTelling(token);
    const holder = lockToken(undefined);
    if (!(await claimKey(this.redis, key, holder, TELLING_LOCK_MS))) return undefined;
    return holdLock(this.redis, key, holder, TELLING_LOCK_MS);
  }

  /** Has the requester been told about `stage` of this request? */
  async wasTold(token: string, stage: string): Promise<boolean> {
    return (await this.redis.hexists(keys.moneyRequestTold(token), stage)) === 1;
  }

  /** Remember the requester was told about `stage` (kept as long as the request). */
  async markTold(token: string, stage: string, nowMs: number): Promise<void> {
    const ttl = await this.redis.pttl(keys.moneyRequest(token));
    await this.redis
      .multi()
      .hset(keys.moneyRequestTold(token), stage, String(nowMs))
      .pexpire(keys.moneyRequestTold(token), ttl > 0 ? ttl : KEEP_AFTER_EXPIRY_MS)
      .exec();
  }

  /** The requester's card of this request (its message in the request's chat), kept as long as the request. */
  async rememberCard(token: string, messageId: number): Promise<void> {
    const ttl = await this.redis.pttl(keys.moneyRequest(token));
    await this.redis.set(
      keys.moneyRequestCard(token),
      String(messageId),
      "PX",
      ttl > 0 ? ttl : KEEP_AFTER_EXPIRY_MS,
    );
  }

  /** The message id of the requester's card, when it was remembered. */
  async cardOf(token: string): Promise<number | undefined> {
    const raw = await this.redis.get(keys.moneyRequestCard(token));
    const messageId = Number(raw);
    return raw !== null && Number.isSafeInteger(messageId) ? messageId : undefined;
  }

  /** Requests of the user still payable: not past their deadline, not paid, not cancelled. */
  private async openCount(userId: number, nowMs: number): Promise<number> {
    const members = await this.redis.zrange(keys.userRequests(userId), 0, -1);
    // Members are `<deadline ms>:<token>`: only those before their deadline need their state read.
    const live = members.filter((member) => Number(member.split(":")[0]) > nowMs);
    if (live.length === 0) return 0;
    const states = await this.redis.mget(
      live.map((member) => keys.moneyRequestState(member.split(":")[1] ?? "")),
    );
    return states.filter((state) => state !== null && state !== "cancelled" && !state.startsWith("paid|"))
      .length;
  }
}
