import { InlineKeyboard } from "grammy";
import type { TFunction } from "i18next";
import { APPROVAL_ACTIONS, approvalData } from "#src/bot/rules/approval-data.js";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney, formatOpsTime } from "#src/money/index.js";
import type { ApprovalPayload, ApprovalRecord, UserRepository } from "#src/store/index.js";

/**
 * The approval request as posted in the admin group, re-rendered (edited in place) at every state change. The
 * beneficiary is shown in full: the approving admin must see exactly where the money goes.
 */
interface CardView {
  t: TFunction;
  locale: string;
}

/** "lntbs60160n1p5dmrdppp5…q9yz" — enough to recognise an invoice without flooding the group. */
function shortInvoice(invoice: string): string {
  return invoice.length <= 40 ? invoice : `${invoice.slice(0, 24)}…${invoice.slice(-8)}`;
}

/** Display names of the people on a card, read once per render. */
export async function namesFor(
  users: UserRepository,
  ids: Array<number | undefined>,
): Promise<Map<number, string>> {
  const names = new Map<number, string>();
  for (const id of ids) {
    if (id === undefined || names.has(id)) continue;
    const user = await users.get(id);
    names.set(id, user?.username ? `@${user.username}` : (user?.firstName ?? String(id)));
  }
  return names;
}

/** The lines describing what leaves and where to; without an id it is the requester's confirm screen. */
export function describePayload(payload: ApprovalPayload, view: CardView, id?: string): string[] {
  const { t, locale } = view;
  const title = (kind: "ngn" | "btc") =>
    id === undefined
      ? t(`admin:treasury.card.draft_${kind}`)
      : t(`admin:treasury.card.title_${kind}`, { id });
  if (payload.kind === "withdraw_ngn") {
    const b = payload.beneficiary;
    return [
      title("ngn"),
      t("admin:treasury.card.amount", { amount: escapeHtml(formatMoney(payload.amount, "NGNKOBO", locale)) }),
      t("admin:treasury.card.beneficiary", {
        name: escapeHtml(b.bankAccountName),
        bank: escapeHtml(b.bankName.trim()),
        code: escapeHtml(b.bankCode),
        account: escapeHtml(b.bankAccountNumber),
      }),
    ];
  }
  if (payload.kind === "refund_ngn") {
    const b = payload.beneficiary;
    return [
      t("refund:ops.card_title", { id: escapeHtml(id ?? "") }),
      t("refund:ops.card_order_ngn", { orderId: escapeHtml(payload.orderId) }),
      t("admin:treasury.card.amount", { amount: escapeHtml(formatMoney(payload.amount, "NGNKOBO", locale)) }),
      t("admin:treasury.card.beneficiary", {
        name: escapeHtml(b.bankAccountName),
        bank: escapeHtml(b.bankName.trim()),
        code: escapeHtml(b.bankCode),
        account: escapeHtml(b.bankAccountNumber),
      }),
    ];
  }
  if (payload.kind === "refund") {
    return [
      t("refund:ops.card_title", { id: escapeHtml(id ?? "") }),
      t("refund:ops.card_order", { orderId: escapeHtml(payload.orderId) }),
      t("admin:treasury.card.amount", {
        amount: escapeHtml(formatMoney(payload.amountSats, "BTCSAT", locale)),
      }),
      t("refund:ops.card_destination", { destination: escapeHtml(payload.destination) }),
      t("admin:treasury.card.invoice", {
        invoice: escapeHtml(shortInvoice(payload.invoice)),
        expiry: escapeHtml(formatOpsTime(payload.invoiceExpiresAt, locale)),
      }),
    ];
  }
  return [
    title("btc"),
    t("admin:treasury.card.amount", {
      amount: escapeHtml(formatMoney(payload.amountSats, "BTCSAT", locale)),
    }),
    t("admin:treasury.card.invoice", {
      invoice: escapeHtml(shortInvoice(payload.invoice)),
      expiry: escapeHtml(formatOpsTime(payload.invoiceExpiresAt, locale)),
    }),
    ...(payload.memo ? [t("admin:treasury.card.memo", { memo: escapeHtml(payload.memo) })] : []),
  ];
}

export function renderApprovalCard(
  record: ApprovalRecord,
  view: CardView,
  names: Map<number, string>,
): { text: string; keyboard?: InlineKeyboard } {
  const { t, locale } = view;
  const name = (id: number | undefined) => escapeHtml(id === undefined ? "?" : (names.get(id) ?? String(id)));
  const lines = [
    ...describePayload(record.payload, view, record.id),
    t("admin:treasury.card.requested", { name: name(record.requestedBy) }),
    "",
  ];
  const result = record.result;
  switch (record.state) {
    case "pending":
      lines.push(
        t("admin:treasury.card.pending", { expiry: escapeHtml(formatOpsTime(record.expiresAt, locale)) }),
      );
      break;
    case "executing":
      lines.push(t("admin:treasury.card.executing", { approver: name(record.decidedBy) }));
      break;
    case "done":
      lines.push(
        t("admin:treasury.card.done", {
          approver: name(record.decidedBy),
          tx: escapeHtml(result?.transactionId ?? "?"),
          status: escapeHtml(result?.status ?? "?"),
        }),
      );
      break;
    case "failed":
      lines.push(
        t("admin:treasury.card.failed", {
          approver: name(record.decidedBy),
          reason: escapeHtml(result?.error ?? "?"),
        }),
      );
      break;
    case "uncertain":
      lines.push(
        t("admin:treasury.card.uncertain", {
          approver: name(record.decidedBy),
          reason: escapeHtml(result?.error ?? "?"),
        }),
      );
      break;
    case "rejected":
      lines.push(t("admin:treasury.card.rejected", { by: name(record.decidedBy) }));
      break;
    case "expired":
      lines.push(t("admin:treasury.card.expired"));
      break;
  }
  if (record.state !== "pending") return { text: lines.join("\n") };
  const keyboard = new InlineKeyboard()
    .text(
      t("admin:treasury.approve_button"),
      approvalData.pack({ action: APPROVAL_ACTIONS.approve, id: record.id }),
    )
    .text(
      t("admin:treasury.reject_button"),
      approvalData.pack({ action: APPROVAL_ACTIONS.reject, id: record.id }),
    );
  return { text: lines.join("\n"), keyboard };
}
