import type { Redis } from "ioredis";
import { keys } from "./keys.ts";
import { LuaScript } from "./script.ts";

/**
 * Refunds of what a failed payout held (sats, or a naira-funded order's kobo): at most one live refund per order,
 * and every state change one Lua compare-and-set, so a double tap, a re-pasted invoice, a replayed conversation or
 * two bot processes can never pay twice. Only the caller whose `open` answered "opened" with state `paying` (or whose approval claim moved it
 * to `paying`) may call POST /withdraw/btc (POST /withdraw for a refund to a bank account).
 *
 *   awaiting_approval ──approved──▶ paying ──API accepted──▶ sent ──payment.sent──▶ paid | failed
 *        │ └─rejected / expired       │└─API refused──▶ failed
 *        │                            └─outcome unknown──▶ uncertain (left for ops, never retried)
 *   (small amounts open straight in paying)
 *
 * A `failed` or `expired` refund may be opened again with a new destination (nothing left the wallet); every other
 * state blocks a second refund of the same order.
 */
const REFUND_STATES = [
  "awaiting_approval",
  "paying",
  "sent",
  "paid",
  "failed",
  "uncertain",
  "rejected",
  "expired",
] as const;
export type RefundState = (typeof REFUND_STATES)[number];

/** States in which the user may ask again (no money moved). */
export const RETRYABLE_REFUND_STATES: readonly RefundState[] = ["failed", "expired"];
const TERMINAL: readonly RefundState[] = ["paid", "failed", "rejected", "expired"];

export type RefundCurrency = "BTCSAT" | "NGNKOBO";

export interface RefundBeneficiary {
  bankAccountNumber: string;
  bankAccountName: string;
  bankCode: string;
  bankName: string;
}

export interface RefundRecord {
  orderId: string;
  state: RefundState;
  userId: number;
  chatId: number;
  /** In minor units of `currency`: sats for a Lightning refund, kobo for a naira-funded order's. */
  amountSats: number;
  currency: RefundCurrency;
  /**
   * "invoice" pasted by the user, "address" (a Lightning address resolved through LNURL-pay), or "bank" (a Nigerian
   * bank account, paid by POST /withdraw to `beneficiary`).
   */
  destinationKind: "invoice" | "address" | "bank";
  /** Shown to the user and ops, already shortened ("lntbs67540n1p…q9yz", "ada@wallet.example", "GTBank ·••6789"). */
  destination: string;
  /** Empty for a bank refund. */
  invoice: string;
  /** A bank refund's account, exactly as name enquiry returned it (POST /withdraw compares every character). */
  beneficiary?: RefundBeneficiary;
  paymentHash?: string;
  /** Unix ms. */
  invoiceExpiresAt: number;
  approvalId?: string;
  transactionId?: string;
  /** The refund card in the user's chat. */
  cardMessageId?: number;
  /** Safe, already-scrubbed reason of a failure. */
  error?: string;
  attempt: number;
  createdAt: number;
  updatedAt: number;
}

type NewRefund = Omit<
  RefundRecord,
  "state" | "attempt" | "createdAt" | "updatedAt" | "cardMessageId" | "paymentHash" | "currency"
> & {
  state: "paying" | "awaiting_approval";
  /** Sats unless said otherwise. */
  currency?: RefundCurrency;
  /**
   * Every BOLT11 invoice carries one; it is what settles the refund when the create's answer was lost. A bank refund
   * has none (it settles by the transaction id POST /withdraw answered).
   */
  paymentHash?: string;
  now: number;
};

type RefundPatch = Partial<Pick<RefundRecord, "approvalId" | "transactionId" | "cardMessageId" | "error">>;

/** Refunds live as long as orders. */
const RETENTION_SECONDS = 90 * 24 * 3600;

// KEYS: the refund, the open set, the refund by payment hash, the order by payment hash.
// ARGV: orderId, now, retention seconds, hashed (1/0: whether KEYS[3] and KEYS[4] apply), then field/value pairs.
const OPEN = new LuaScript(`
local hashed = ARGV[4] == '1'
if hashed and redis.call('EXISTS', KEYS[4]) == 1 then return 'hash_known' end
local owner = hashed and redis.call('GET', KEYS[3])
if owner and owner ~= ARGV[1] then return 'hash_known' end
local state = redis.call('HGET', KEYS[1], 'state')
if state and state ~= 'failed' and state ~= 'expired' then return state end
local attempt = tonumber(redis.call('HGET', KEYS[1], 'attempt') or '0') + 1
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'attempt', tostring(attempt), unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
if hashed then redis.call('SET', KEYS[3], ARGV[1], 'EX', tonumber(ARGV[3])) end
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]), ARGV[1])
return 'opened'
`);

// ARGV: orderId, to, now, terminal (1/0), fromCount, from..., then field/value pairs.
const MOVE = new LuaScript(`
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'missing' end
local count = tonumber(ARGV[5])
local allowed = false
for i = 1, count do
  if ARGV[5 + i] == state then allowed = true end
end
if not allowed then return state end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'updatedAt', ARGV[3])
for i = 6 + count, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
if ARGV[4] == '1' then redis.call('ZREM', KEYS[2], ARGV[1]) end
return 'ok'
`);

export class RefundRepository {
  constructor(private readonly redis: Redis) {}

  /**
   * "opened" for exactly one caller; "hash_known" when the invoice's payment hash is an order's or another order's
   * refund's (a payment to it would be read as theirs); otherwise the state of the refund that already exists.
   */
  async open(input: NewRefund): Promise<"opened" | "hash_known" | RefundState> {
    const fields: Record<string, string> = {
      state: input.state,
      orderId: input.orderId,
      userId: String(input.userId),
      chatId: String(input.chatId),
      amountSats: String(input.amountSats),
      currency: input.currency ?? "BTCSAT",
      destinationKind: input.destinationKind,
      destination: input.destination,
      invoice: input.invoice,
      invoiceExpiresAt: String(input.invoiceExpiresAt),
      createdAt: String(input.now),
      updatedAt: String(input.now),
      ...(input.paymentHash ? { paymentHash: input.paymentHash } : {}),
      ...(input.beneficiary ? { beneficiary: JSON.stringify(input.beneficiary) } : {}),
    };
    // Without a hash the two hash keys are not read or written (the refund's own key stands in for them).
    const hash = input.paymentHash;
    return (await OPEN.run(
      this.redis,
      [
        keys.refund(input.orderId),
        keys.refundsOpen(),
        hash ? keys.refundByHash(hash) : keys.refund(input.orderId),
        hash ? keys.orderByHash(hash) : keys.refund(input.orderId),
      ],
      [
        input.orderId,
        String(input.now),
        String(RETENTION_SECONDS),
        hash ? "1" : "0",
        ...Object.entries(fields).flat(),
      ],
    )) as "opened" | "hash_known" | RefundState;
  }

  /** Whether a payment hash is an order's, or the invoice of a refund of another order than `orderId`. */
  async hashKnown(paymentHash: string, orderId: string): Promise<boolean> {
    const [order, owner] = await this.redis.mget(
      keys.orderByHash(paymentHash),
      keys.refundByHash(paymentHash),
    );
    return order !== null || (owner !== null && owner !== orderId);
  }

  async get(orderId: string): Promise<RefundRecord | undefined> {
    return toRecord(await this.redis.hgetall(keys.refund(orderId)));
  }

  /** Move from one of `from` to `to` (with extra fields); "ok" for the one caller that did, else the state found. */
  async move(
    orderId: string,
    from: readonly RefundState[],
    to: RefundState,
    patch: RefundPatch = {},
    now = Date.now(),
  ): Promise<"ok" | "missing" | RefundState> {
    const pairs = Object.entries(patch)
      .filter(([, value]) => value !== undefined)
      .flatMap(([field, value]) => [field, String(value)]);
    return (await MOVE.run(
      this.redis,
      [keys.refund(orderId), keys.refundsOpen()],
      [orderId, to, String(now), TERMINAL.includes(to) ? "1" : "0", String(from.length), ...from, ...pairs],
    )) as "ok" | "missing" | RefundState;
  }

  /** Fields that are not a state change (the card's message id). */
  async annotate(orderId: string, patch: Pick<RefundPatch, "cardMessageId">): Promise<void> {
    if (patch.cardMessageId === undefined) return;
    await this.redis.hset(keys.refund(orderId), "cardMessageId", String(patch.cardMessageId));
  }

  async linkTransaction(transactionId: string, orderId: string): Promise<void> {
    await this.redis.set(keys.refundByTransaction(transactionId), orderId, "EX", RETENTION_SECONDS);
  }

  /** The refund that made this withdrawal (its id as POST /withdraw/btc or POST /withdraw answered). */
  async findByTransaction(transactionId: string): Promise<RefundRecord | undefined> {
    const orderId = await this.redis.get(keys.refundByTransaction(transactionId));
    return orderId ? this.get(orderId) : undefined;
  }

  /** The refund whose invoice carries this payment hash (one at most: `open` refuses a hash already known). */
  async findByHash(paymentHash: string): Promise<RefundRecord | undefined> {
    const orderId = await this.redis.get(keys.refundByHash(paymentHash));
    const refund = orderId ? await this.get(orderId) : undefined;
    return refund?.paymentHash === paymentHash ? refund : undefined;
  }

  /**
   * How many refunds are open in each state that is not terminal (zeros included, so a gauge always has its
   * series): one read of `refunds:open` and one pipelined read of each open refund's state. Open refunds are few —
   * each leaves the set when it ends — so a scrape can afford it.
   */
  async countOpen(): Promise<Record<string, number>> {
    const counts: Record<string, number> = Object.fromEntries(
      REFUND_STATES.filter((state) => !TERMINAL.includes(state)).map((state) => [state, 0]),
    );
    const ids = await this.redis.zrange(keys.refundsOpen(), 0, -1);
    if (ids.length === 0) return counts;
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(keys.refund(id), "state");
    for (const [error, state] of (await pipeline.exec()) ?? []) {
      if (!error && typeof state === "string" && state in counts) counts[state] = (counts[state] ?? 0) + 1;
    }
    return counts;
  }

  /** Refunds not finished (awaiting approval, paying, sent, uncertain) opened before `beforeMs`, oldest first. */
  async listOpen(beforeMs = Number.POSITIVE_INFINITY, limit = 50): Promise<RefundRecord[]> {
    const max = Number.isFinite(beforeMs) ? String(beforeMs) : "+inf";
    const ids = await this.redis.zrangebyscore(keys.refundsOpen(), "-inf", max, "LIMIT", 0, limit);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((record): record is RefundRecord => !!record);
  }
}

const int = (value: string | undefined): number | undefined => {
  if (value === undefined || value === "") return undefined;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : undefined;
};

function toRecord(fields: Record<string, string>): RefundRecord | undefined {
  const state = fields.state as RefundState | undefined;
  if (!state || !REFUND_STATES.includes(state)) return undefined;
  const userId = int(fields.userId);
  const chatId = int(fields.chatId);
  const amountSats = int(fields.amountSats);
  const invoiceExpiresAt = int(fields.invoiceExpiresAt);
  const createdAt = int(fields.createdAt);
  const kind = fields.destinationKind;
  if (kind !== "invoice" && kind !== "address" && kind !== "bank") return undefined;
  const beneficiary = kind === "bank" ? parseBeneficiary(fields.beneficiary) : undefined;
  if (!fields.orderId || (kind === "bank" ? !beneficiary : !fields.invoice)) return undefined;
  if (userId === undefined || chatId === undefined || amountSats === undefined) return undefined;
  if (invoiceExpiresAt === undefined || createdAt === undefined) return undefined;
  const cardMessageId = int(fields.cardMessageId);
  return {
    orderId: fields.orderId,
    state,
    userId,
    chatId,
    amountSats,
    currency: fields.currency === "NGNKOBO" ? "NGNKOBO" : "BTCSAT",
    destinationKind: kind,
    destination: fields.destination ?? "",
    invoice: fields.invoice ?? "",
    ...(beneficiary ? { beneficiary } : {}),
    invoiceExpiresAt,
    attempt: int(fields.attempt) ?? 1,
    createdAt,
    updatedAt: int(fields.updatedAt) ?? createdAt,
    ...(fields.paymentHash ? { paymentHash: fields.paymentHash } : {}),
    ...(fields.approvalId ? { approvalId: fields.approvalId } : {}),
    ...(fields.transactionId ? { transactionId: fields.transactionId } : {}),
    ...(fields.error ? { error: fields.error } : {}),
    ...(cardMessageId !== undefined ? { cardMessageId } : {}),
  };
}

function parseBeneficiary(json: string | undefined): RefundBeneficiary | undefined {
  if (!json) return undefined;
  try {
    const value = JSON.parse(json) as Partial<RefundBeneficiary>;
    const { bankAccountNumber, bankAccountName, bankCode, bankName } = value;
    if (typeof bankAccountNumber !== "string" || typeof bankAccountName !== "string") return undefined;
    if (typeof bankCode !== "string" || typeof bankName !== "string") return undefined;
    return { bankAccountNumber, bankAccountName, bankCode, bankName };
  } catch {
    return undefined;
  }
}
