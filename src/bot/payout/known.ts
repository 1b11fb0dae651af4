import type { BotDeps } from "#src/bot/context.js";
import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { methodOf } from "#src/corridors/index.js";
import { COUNTRY_FLAGS, type Country } from "#src/money/index.js";
import type { OrderRecord, OrderStage, Recipient } from "#src/store/index.js";
import { payoutAction, payoutKnownData } from "./callback-data.ts";
import { knownRecipientsKeyboard } from "./keyboards.ts";
import { askButton, type Draft, failureText, storedDraft, withNotice } from "./prompts.ts";
import { shownLabel } from "./recipient.ts";

/**
 * Before a new recipient's steps, a sender is offered the people they already sent to in that country — recent
 * paid payouts and saved recipients, newest first, one button per beneficiary — each straight to the amount, or
 * "someone new". A monthly sender should not have to know /recipients.
 */

/** At most this many people are offered (a handful: the rest are in /recipients). */
const OFFERED = 5;
/** The user's newest orders read for recent recipients. */
const RECENT_ORDERS = 20;
/** Stages of an order whose money went out: its beneficiary is someone this user has sent to. */
const SENT_STAGES: ReadonlySet<OrderStage> = new Set(["payment_received", "payout_sent", "completed"]);

/** What the screen keeps of each person offered: where to read them again (as this user's), and the label. */
type Known = { recipientId: string; label: string } | { orderId: string; label: string };

/** The stored beneficiary a chosen button stands for. */
interface Chosen {
  details: Record<string, unknown>;
  label: string;
  recipientId?: string;
}

/** Undefined: someone new (straight away when there is nobody to offer). */
export async function chooseKnown(io: FlowIo, country: Country): Promise<Draft | undefined> {
  const userId = io.userId;
  const listed = await io.call("known-recipients", (deps) => knownRecipients(deps, userId, country));
  if (!listed.ok || listed.value.length === 0) return undefined;
  const known = listed.value;
  const { t } = io;
  let notice: string | undefined;
  for (;;) {
    const shownNotice = notice;
    await io.show(
      () => withNotice(shownNotice, t("payout:known.title", { flag: COUNTRY_FLAGS[country] })),
      () =>
        knownRecipientsKeyboard(
          t,
          known.map(({ label }) => shownLabel(label)),
        ),
    );
    let entry: Known | undefined;
    while (!entry) {
      const { data } = await askButton(io);
      if (data === payoutAction("someone_new")) return undefined;
      const index = payoutKnownData.parse(data)?.index;
      entry = index === undefined ? undefined : known[index];
    }
    const chosen = entry;
    // Read again as this user's record: it may have been deleted since the screen was drawn.
    const found = await io.call("known-recipient", (deps) => readKnown(deps, userId, country, chosen));
    if (found.ok && found.value) {
      const { details, label, recipientId } = found.value;
      return storedDraft(io, country, details, label, recipientId);
    }
    notice = found.ok ? t("payout:known.gone") : failureText(io, found.error);
  }
}

/** The people to offer: recent paid payouts first (as their saved recipient when there is one), then the saved. */
async function knownRecipients(deps: BotDeps, userId: number, country: Country): Promise<Known[]> {
  const [all, recent] = await Promise.all([
    deps.store.recipients.list(userId),
    deps.store.orders.listForUser(userId, 0, RECENT_ORDERS),
  ]);
  const saved = all.filter((recipient) => recipient.userId === userId && recipient.corridor === country);
  const known: Known[] = [];
  const seen = new Set<string>();
  const add = (details: Record<string, unknown>, entry: Known) => {
    const key = JSON.stringify(details);
    if (seen.has(key)) return;
    seen.add(key);
    known.push(entry);
  };
  for (const order of recent.orders.filter((candidate) => sentTo(candidate, userId, country))) {
    const beneficiary = order.beneficiary ?? {};
    const same = saved.find(
      (recipient) =>
        recipient.id === order.recipientId ||
        JSON.stringify(recipient.details) === JSON.stringify(beneficiary),
    );
    if (same) add(same.details, { recipientId: same.id, label: same.label });
    else add(beneficiary, { orderId: order.orderId, label: order.recipientLabel });
  }
  for (const recipient of saved)
    add(recipient.details, { recipientId: recipient.id, label: recipient.label });
  return known.slice(0, OFFERED);
}

/**
 * A payout of this user to this country whose money went out. A money request's payout is left out: its
 * beneficiary is the requester's, given for that one request.
 */
function sentTo(order: OrderRecord, userId: number, country: Country): boolean {
  return (
    order.userId === userId &&
    order.kind === "payout" &&
    order.corridor === country &&
    !order.requestId &&
    !!order.beneficiary &&
    SENT_STAGES.has(order.stage)
  );
}

/** The chosen person's details, read from this user's own records only; null when gone. */
async function readKnown(
  deps: BotDeps,
  userId: number,
  country: Country,
  entry: Known,
): Promise<Chosen | null> {
  if ("recipientId" in entry) {
    const recipient: Recipient | undefined = await deps.store.recipients.get(userId, entry.recipientId);
    if (!recipient || recipient.userId !== userId || methodOf(recipient.details)?.corridor !== country)
      return null;
    return { details: recipient.details, label: recipient.label, recipientId: recipient.id };
  }
  const order = await deps.store.orders.get(entry.orderId);
  if (!order?.beneficiary || !sentTo(order, userId, country)) return null;
  if (methodOf(order.beneficiary)?.corridor !== country) return null;
  return { details: order.beneficiary, label: order.recipientLabel };
}
