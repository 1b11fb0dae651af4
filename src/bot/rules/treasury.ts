import { decode } from "light-bolt11-decoder";
import { isPayoutApiError } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { type BankEntry, createBankSearch } from "#src/bot/rules/banks.js";
import { maskDigits, scrubText } from "#src/log/mask.js";
import type {
  ApprovalPayload,
  ApprovalRecord,
  ApproveOutcome,
  RejectOutcome,
  Store,
} from "#src/store/index.js";

/**
 * Treasury withdrawals with four eyes: a request is stored (with an expiry) and posted to the admin group; only a
 * second, different admin can approve it, and only the one caller that wins the atomic pending → executing change
 * calls the API. A failed or uncertain call is reported and never retried automatically.
 */
const APPROVAL_TTL_MS = 15 * 60_000;

type TreasuryDeps = Pick<BotDeps, "logger"> & {
  store: Pick<Store, "approvals" | "audit" | "caches">;
  api: Pick<BotDeps["api"], "listBanks" | "withdrawNgn" | "withdrawBtc">;
};

// ---------------------------------------------------------------------------------------------- invoices

export interface DecodedInvoice {
  invoice: string;
  /** null for an amountless invoice (refused: the amount must be approved, not chosen by the payer). */
  amountSats: number | null;
  /** The exact amount (an invoice may ask for a fraction of a sat, which amountSats rounds down). */
  amountMsat: bigint | null;
  /** Unix ms. */
  expiresAt: number;
  paymentHash?: string;
  description?: string;
  /** Hex sha256 of a long description (LNURL-pay commits to its metadata this way). */
  descriptionHash?: string;
  /** bech32 prefix: bc, tb, tbs, bcrt. */
  network: string;
}

const NETWORK_PREFIX: Record<string, string> = {
  mainnet: "bc",
  testnet: "tb",
  signet: "tbs",
  regtest: "bcrt",
};

/** Decode a BOLT11 invoice (a leading "lightning:" is tolerated); undefined when it is not one. */
export function decodeLightningInvoice(text: string): DecodedInvoice | undefined {
  const invoice = text
    .trim()
    .replace(/^lightning:/i, "")
    .toLowerCase();
  if (!/^ln[a-z0-9]+$/.test(invoice)) return undefined;
  try {
    const decoded = decode(invoice);
    const section = (name: string) =>
      decoded.sections.find((entry) => entry.name === name) as
        | { value?: unknown; letters?: string }
        | undefined;
    const msat = section("amount")?.value;
    const timestamp = Number(section("timestamp")?.value ?? 0);
    const expirySeconds = Number(section("expiry")?.value ?? 3600);
    const amountMsat = typeof msat === "string" ? BigInt(msat) : null;
    const amountSats = amountMsat === null ? null : Number(amountMsat / 1000n);
    if (amountSats !== null && !Number.isSafeInteger(amountSats)) return undefined;
    const hash = section("payment_hash")?.value;
    const description = section("description")?.value;
    const descriptionHash = section("description_hash")?.value;
    return {
      invoice,
      amountSats,
      amountMsat,
      expiresAt: (timestamp + expirySeconds) * 1000,
      network: section("coin_network")?.letters ?? "",
      ...(typeof hash === "string" ? { paymentHash: hash } : {}),
      ...(typeof description === "string" ? { description } : {}),
      ...(typeof descriptionHash === "string" ? { descriptionHash } : {}),
    };
  } catch {
    return undefined;
  }
}

export function invoiceFitsNetwork(decoded: DecodedInvoice, network: string): boolean {
  return decoded.network === (NETWORK_PREFIX[network] ?? network);
}

// ---------------------------------------------------------------------------------------------- banks

const BANKS_CACHE_SECONDS = 6 * 3600;

async function bankList(deps: TreasuryDeps): Promise<BankEntry[]> {
  const cached = await deps.store.caches.read({ kind: "treasuryBanks" });
  if (cached) {
    try {
      return JSON.parse(cached) as BankEntry[];
    } catch {
      // fall through to a fresh list
    }
  }
  const banks = await deps.api.listBanks("NG");
  const slim = banks.map(({ bankName, nipBankCode }) => ({ bankName, nipBankCode }));
  await deps.store.caches.write({ kind: "treasuryBanks" }, JSON.stringify(slim), BANKS_CACHE_SECONDS);
  return slim;
}

/**
 * A 6-digit NIP code matches exactly; anything else goes through the payout flow's bank search (aliases such as
 * "gtb", then fuzzy over the API's names). Only the matches leave this function (conversation logs stay small).
 */
export async function searchBanks(deps: TreasuryDeps, query: string, limit = 6): Promise<BankEntry[]> {
  const search = createBankSearch(await bankList(deps));
  const wanted = query.trim();
  if (/^\d{6}$/.test(wanted)) {
    const bank = search.byCode(wanted);
    return bank ? [bank] : [];
  }
  return search.search(wanted, limit);
}

// ---------------------------------------------------------------------------------------------- approvals

export async function requestWithdrawal(
  deps: Pick<TreasuryDeps, "store">,
  input: {
    payload: ApprovalPayload;
    requestedBy: number;
    requesterName: string;
    chatId: number;
    now: number;
  },
): Promise<ApprovalRecord> {
  const record = await deps.store.approvals.create({ ...input, ttlMs: APPROVAL_TTL_MS });
  await deps.store.audit.record({
    actor: input.requestedBy,
    action: "treasury.request",
    details: {
      id: record.id,
      ...auditDetails(record.payload),
      expiresAt: new Date(record.expiresAt).toISOString(),
    },
  });
  return record;
}

/** Whether a user is an ops admin at this moment (asked of Telegram, not of a cache). */
type OpsAdminNow = (userId: number) => Promise<boolean>;

/**
 * Besides the store's outcomes: the approver is not an ops admin right now (demoted since the button reached them),
 * or the admin who requested it no longer is.
 */
type ClaimOutcome = ApproveOutcome | "not_ops" | "requester_not_ops";

/**
 * An admin pressed Approve: the atomic gate. Only "claimed" may go on to executeApproval (once); every other
 * outcome (the requester themselves, a role lost, expired, already decided) is audited and reported back.
 */
export async function claimApproval(
  deps: TreasuryDeps,
  id: string,
  approverId: number,
  now: number,
  opsAdminNow: OpsAdminNow,
): Promise<ClaimOutcome> {
  const outcome =
    (await refusedByRole(deps, id, approverId, opsAdminNow)) ??
    (await deps.store.approvals.approve(id, approverId, now));
  const action =
    outcome === "claimed"
      ? "treasury.approved"
      : outcome === "self"
        ? "treasury.self_approval_refused"
        : `treasury.approve_${outcome}`;
  await deps.store.audit.record({ actor: approverId, action, details: { id } });
  return outcome;
}

/**
 * Four eyes are two ops admins at the moment money moves: the approver is asked of Telegram now, and so is the
 * requester of a treasury withdrawal — a request is the intent of an admin, and one demoted since (perhaps because
 * their account is no longer trusted) must not have it carried out by someone else. A refund's requester is the
 * customer, who never was ops. Only a pending request is checked: any other state answers for itself.
 */
async function refusedByRole(
  deps: TreasuryDeps,
  id: string,
  approverId: number,
  opsAdminNow: OpsAdminNow,
): Promise<"not_ops" | "requester_not_ops" | undefined> {
  if (!(await opsAdminNow(approverId))) return "not_ops";
  const record = await deps.store.approvals.get(id);
  if (record?.state !== "pending" || isRefund(record.payload)) return undefined;
  if (record.requestedBy === approverId) return undefined;
  return (await opsAdminNow(record.requestedBy)) ? undefined : "requester_not_ops";
}

/** Call the API for a claimed request, once; returns the request with its stored outcome. */
export async function executeApproval(deps: TreasuryDeps, id: string): Promise<ApprovalRecord | undefined> {
  const record = await deps.store.approvals.get(id);
  if (record?.state !== "executing") return record;
  if (!(await deps.store.approvals.startExecution(id, Date.now()))) return record;
  await execute(deps, record);
  return deps.store.approvals.get(id);
}

/** A customer's refund (of held sats or of a naira-funded order's kobo): its requester is the customer. */
function isRefund(payload: ApprovalPayload): boolean {
  return payload.kind === "refund" || payload.kind === "refund_ngn";
}

/** The one API call a request stands for. */
function withdraw(deps: TreasuryDeps, payload: ApprovalPayload) {
  switch (payload.kind) {
    case "withdraw_ngn":
    case "refund_ngn":
      return deps.api.withdrawNgn({ amount: payload.amount, beneficiary: payload.beneficiary });
    case "refund":
      return deps.api.withdrawBtc({ invoice: payload.invoice, memo: `refund ${payload.orderId}` });
    case "withdraw_btc":
      return deps.api.withdrawBtc({ invoice: payload.invoice, memo: payload.memo });
  }
}

async function execute(deps: TreasuryDeps, record: ApprovalRecord): Promise<void> {
  const { payload } = record;
  try {
    const transaction = await withdraw(deps, payload);
    await deps.store.approvals.finish(record.id, "done", {
      transactionId: transaction.id,
      status: transaction.status,
    });
    await deps.store.approvals.linkTransaction(transaction.id, record.id);
    await deps.store.audit.record({
      actor: "system",
      action: "treasury.executed",
      details: { id: record.id, transactionId: transaction.id, status: transaction.status },
    });
  } catch (error) {
    const uncertain = isPayoutApiError(error) && error.outcomeUnknown;
    const reason = describeFailure(error);
    await deps.store.approvals.finish(record.id, uncertain ? "uncertain" : "failed", { error: reason });
    await deps.store.audit.record({
      actor: "system",
      action: uncertain ? "treasury.uncertain" : "treasury.failed",
      details: { id: record.id, reason },
    });
    deps.logger.error(
      { err: error, approvalId: record.id, uncertain },
      "treasury withdrawal did not complete",
    );
  }
}

/** What went wrong, safe to show ops: the API's own message for refusals, the failure kind otherwise. */
function describeFailure(error: unknown): string {
  if (isPayoutApiError(error)) {
    const status = error.status === undefined ? "" : ` ${error.status}`;
    return scrubText(
      error.apiMessage ? `${error.apiMessage} (${error.kind}${status})` : `${error.kind}${status}`,
    );
  }
  return "unexpected error";
}

export async function rejectWithdrawal(
  deps: TreasuryDeps,
  id: string,
  by: number,
  now: number,
): Promise<RejectOutcome> {
  const outcome = await deps.store.approvals.reject(id, by, now);
  await deps.store.audit.record({ actor: by, action: `treasury.reject_${outcome}`, details: { id } });
  return outcome;
}

/** Pending requests past their expiry → expired (the caller edits their messages). */
export async function expireApprovals(deps: Pick<BotDeps, "store">, now: number): Promise<ApprovalRecord[]> {
  const expired = await deps.store.approvals.expireDue(now);
  for (const record of expired) {
    await deps.store.audit.record({
      actor: "system",
      action: "treasury.expired",
      details: { id: record.id },
    });
  }
  return expired;
}

/** Audit details never hold a full account number or an invoice. */
function auditDetails(payload: ApprovalPayload): Record<string, string | number> {
  if (payload.kind === "withdraw_ngn" || payload.kind === "refund_ngn") {
    return {
      kind: payload.kind,
      amount: payload.amount,
      currency: "NGNKOBO",
      bankCode: payload.beneficiary.bankCode,
      account: maskDigits(payload.beneficiary.bankAccountNumber),
      ...(payload.kind === "refund_ngn" ? { orderId: payload.orderId } : {}),
    };
  }
  return {
    kind: payload.kind,
    amount: payload.amountSats,
    currency: "BTCSAT",
    hash: payload.paymentHash ?? "",
    ...(payload.kind === "refund" ? { orderId: payload.orderId } : {}),
  };
}
