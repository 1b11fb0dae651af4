import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { continueAsNew } from "#src/bot/flow/continue.js";
import { FLOWS } from "#src/bot/flow/enter.js";
import { FlowIo, type ScreenState } from "#src/bot/flow/flow-io.js";
import { pausedCorridors } from "#src/bot/rules/pauses.js";
import { type Minimums, minimums } from "#src/bot/rules/payout-minimums.js";
import { methodOf } from "#src/corridors/index.js";
import { type Country, type CurrencyCode, isCurrencyCode } from "#src/money/index.js";
import { isNairaFunded } from "#src/orders/index.js";
import type { PauseScope } from "#src/store/index.js";
import { askAmount } from "./amount.ts";
import { PAYOUT_SCREENS } from "./callback-data.ts";
import { chooseCountry, chooseRecipient } from "./country.ts";
import { nairaPayout } from "./naira/flow.ts";
import { type AmountChoice, type Draft, storedDraft } from "./prompts.ts";
import { quoteAndConfirm } from "./quote.ts";
import { openRequest } from "./requests/pay.ts";

/**
 * The payout flow: country → beneficiary → amount → quote card → invoice + status card. Entered with
 * `ctx.conversation.enter("payout", args)`:
 * - no args: from the start (/send, the menu);
 * - { recipientToken }: a saved recipient (deep link send_<token>, "send again"): straight to the amount;
 * - { requoteOrderId, requoteKey }: "New quote" on an expired card: same beneficiary and amount, straight to
 *   the quote (requoteKey, the press's callback query id, makes the new quote happen once);
 * - { country }: a rate alert's "Send now": straight to the recipient step of that corridor (unless paused).
 * - { requestToken }: a money request's link (start req_<token>): its beneficiary and amount, straight to a
 *   fresh quote; the amount is the request's, so a refused quote ends the flow instead of asking for another.
 * - { recipientToken, amount, quoteKey }: a repeat send's "Get quote": that recipient and amount, straight to the
 *   quote (quoteKey, the press's callback query id, makes the quote happen once).
 * - { resume }: the flow itself, once a recipient is chosen, going on as a fresh conversation (flow/continue.ts):
 *   the amount and quote steps then replay their own screens only, not the country, bank and account ones.
 */
export interface PayoutArgs {
  country?: Country;
  recipientToken?: string;
  requestToken?: string;
  amount?: AmountChoice;
  quoteKey?: string;
  requoteOrderId?: string;
  requoteKey?: string;
  resume?: PayoutResume;
}

/** What the rest of the flow needs once the recipient is chosen. */
interface PayoutResume {
  draft: Draft;
  minimums: Minimums;
  paused: PauseScope[];
  screen: ScreenState;
  lastMode?: CurrencyCode;
}

export async function payoutFlow(
  conversation: FlowConversation,
  ctx: FlowContext,
  args?: PayoutArgs,
): Promise<void> {
  const resume = args?.resume;
  const io = new FlowIo(conversation, ctx, PAYOUT_SCREENS, resume?.screen);
  const { t } = io;
  let draft: Draft | undefined = resume?.draft;
  let amount: AmountChoice | undefined;
  let key: string | undefined;
  let notice: string | undefined;
  let lastMode: CurrencyCode | undefined = resume?.lastMode;
  // The expired order "New quote" quotes again: what a quote refused by the budget offers to quote again later.
  let requoteOf: string | undefined;

  if (args?.requoteOrderId) {
    const previous = await fromOrder(io, args.requoteOrderId);
    if (previous) {
      ({ draft, amount } = previous);
      // A naira-funded order is quoted again from the naira amount screen.
      if (previous.naira) [amount, lastMode] = [undefined, "NGNKOBO"];
      key = `requote:${args.requoteKey ?? args.requoteOrderId}`;
      requoteOf = args.requoteOrderId;
    } else {
      notice = t("payout:entry.requote_gone");
    }
  } else if (args?.requestToken) {
    const opened = await openRequest(io, args.requestToken);
    if (!opened) return;
    ({ draft, amount, key } = opened);
  } else if (args?.recipientToken) {
    draft = await fromSaved(io, args.recipientToken);
    if (!draft) notice = t("payout:entry.link_gone");
    else if (args.amount && args.quoteKey) {
      amount = args.amount;
      key = `repeat-quote:${args.quoteKey}`;
    }
  }

  const { mins, paused } = resume ? { mins: resume.minimums, paused: resume.paused } : await pickerData(io);
  // Used once: "change recipient" later goes back to the country list.
  let preset = args?.country && !paused.includes(args.country) && !notice ? args.country : undefined;

  for (;;) {
    if (!draft) {
      const country = preset ?? (await chooseCountry(io, mins, notice, paused));
      preset = undefined;
      notice = undefined;
      draft = await chooseRecipient(io, country, "sender");
      const next: PayoutResume = { draft, minimums: mins, paused, screen: io.screen };
      if (lastMode) next.lastMode = lastMode;
      return continueAsNew(conversation, FLOWS.payout, { resume: next } satisfies PayoutArgs);
    }
    if (!amount || key === undefined) {
      const answer = await askAmount(io, draft, mins[draft.country], notice, lastMode, nairaPayout);
      notice = undefined;
      if (answer === "ended") return;
      if (answer === "change_recipient") {
        draft = undefined;
        continue;
      }
      ({ amount, key } = answer);
    }
    const outcome = await quoteAndConfirm(io, draft, amount, key, requoteOf);
    requoteOf = undefined;
    if (outcome === "done" || outcome === "cancelled") return;
    if (draft.requestId) {
      if (outcome.notice) await io.reply(outcome.notice, { parse_mode: "HTML" });
      return;
    }
    // Back to the amount (too small, refused): ask in the currency the user was typing in.
    lastMode = amount.currency;
    amount = undefined;
    key = undefined;
    notice = outcome.notice || undefined;
  }
}

/** The country picker's minimums and paused corridors, read once per conversation. */
async function pickerData(io: FlowIo): Promise<{ mins: Minimums; paused: PauseScope[] }> {
  const loaded = await io.call("minimums", (deps) => minimums(deps));
  const pauses = await io.call("paused-corridors", (deps) => pausedCorridors(deps));
  return { mins: loaded.ok ? loaded.value : {}, paused: pauses.ok ? pauses.value : [] };
}

/** A saved recipient of this user, by its token; anyone else's token reads as unknown. */
async function fromSaved(io: FlowIo, token: string): Promise<Draft | undefined> {
  const userId = io.userId;
  // Only what the draft needs is kept in the conversation log.
  const found = await io.call("saved-recipient", async (deps) => {
    const recipient = await deps.store.recipients.getByToken(token);
    return recipient && recipient.userId === userId
      ? { id: recipient.id, label: recipient.label, details: recipient.details }
      : null;
  });
  if (!found.ok || !found.value) return undefined;
  const recipient = found.value;
  const kind = methodOf(recipient.details);
  if (!kind) return undefined;
  return storedDraft(io, kind.corridor, recipient.details, recipient.label, recipient.id);
}

/** The beneficiary and amount of an earlier order of this user (for "New quote"). */
async function fromOrder(
  io: FlowIo,
  orderId: string,
): Promise<{ draft: Draft; amount: AmountChoice; naira: boolean } | undefined> {
  const userId = io.userId;
  const found = await io.call("requote-order", async (deps) => {
    const order = await deps.store.orders.get(orderId);
    if (!order || order.userId !== userId || order.kind !== "payout" || !order.beneficiary) return null;
    const { corridor, beneficiary, recipientLabel, recipientId, requestId, receive } = order;
    return {
      naira: isNairaFunded(order),
      corridor,
      beneficiary,
      recipientLabel,
      receive,
      ...(recipientId ? { recipientId } : {}),
      ...(requestId ? { requestId } : {}),
    };
  });
  if (!found.ok || !found.value?.beneficiary) return undefined;
  const order = found.value;
  const currency: CurrencyCode | undefined = isCurrencyCode(order.receive.currency)
    ? order.receive.currency
    : undefined;
  if (!currency || !order.beneficiary) return undefined;
  const saved = storedDraft(io, order.corridor, order.beneficiary, order.recipientLabel, order.recipientId);
  const draft = order.requestId ? { ...saved, requestId: order.requestId } : saved;
  return { draft, amount: { minor: order.receive.amount, currency }, naira: order.naira };
}
