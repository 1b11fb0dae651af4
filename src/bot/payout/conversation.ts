import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { continueAsNew } from "#src/bot/flow/continue.js";
import { FLOWS } from "#src/bot/flow/enter.js";
import { FlowIo, type ScreenState } from "#src/bot/flow/flow-io.js";
import { pausedCorridors } from "#src/bot/rules/pauses.js";
import { type Minimums, minimums } from "#src/bot/rules/payout-minimums.js";
import { methodOf } from "#src/corridors/index.js";
import { type Country, type CurrencyCode, currencyOfCountry, isCurrencyCode } from "#src/money/index.js";
import { isNairaFunded } from "#src/orders/index.js";
import type { PauseScope } from "#src/store/index.js";
import { askAmount } from "./amount.ts";
import { PAYOUT_SCREENS } from "./callback-data.ts";
import { chooseCountry, chooseRecipient } from "./country.ts";
import { nairaPayout, nairaQuoteAndConfirm } from "./naira/flow.ts";
import { askPayMethod, offersNairaFor, type PayMethod } from "./naira/method.ts";
import type { NairaQuoteInput } from "./naira/quote.ts";
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
 * - { recipientToken, amount, quoteKey, repeatId }: a repeat send's "Get quote": that recipient and amount, straight
 *   to the quote (quoteKey, the press's callback query id, makes the quote happen once).
 * A request's or a repeat's amount to Kenya, South Africa or Ghana is first asked "How will you pay?" (naira/method.ts);
 * a repeat remembers the answer.
 * - { resume }: the flow itself, once a recipient is chosen, going on as a fresh conversation (flow/continue.ts):
 *   the amount and quote steps then replay their own screens only, not the country, bank and account ones.
 */
export interface PayoutArgs {
  country?: Country;
  recipientToken?: string;
  requestToken?: string;
  amount?: AmountChoice;
  quoteKey?: string;
  repeatId?: string;
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
  const entry = await entryOf(io, args);
  if (!entry) return;
  let { draft, amount, key, notice, lastMode, requoteOf, choose } = entry;

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
    const method = choose ? await choosePayMethod(io, draft, amount, choose.repeatId) : "lightning";
    choose = undefined;
    const outcome =
      method === "naira"
        ? await nairaQuoteAndConfirm(io, draft, { ...amount, currency: targetOf(draft) }, key)
        : await quoteAndConfirm(io, draft, amount, key, requoteOf);
    requoteOf = undefined;
    if (outcome === "done" || outcome === "cancelled") return;
    if (draft.requestId) {
      if (outcome.notice) await io.reply(outcome.notice, { parse_mode: "HTML" });
      return;
    }
    // Back to the amount (too small, refused): ask in the currency the user was typing in, or in naira.
    lastMode = method === "naira" ? "NGNKOBO" : amount.currency;
    amount = undefined;
    key = undefined;
    notice = outcome.notice || undefined;
  }
}

/** Where the flow starts: what its arguments already say (recipient, amount, key), and what to tell first. */
interface Entry {
  draft?: Draft;
  amount?: AmountChoice;
  key?: string;
  notice?: string;
  lastMode?: CurrencyCode;
  /** The expired order "New quote" quotes again: what a quote refused by the budget offers to quote again later. */
  requoteOf?: string;
  /** A request's or a repeat's amount: the payer chooses how to pay it (once, before its first quote). */
  choose?: { repeatId?: string };
}

/** The flow's start from its arguments; undefined: nothing to do (a request that cannot be paid was told so). */
async function entryOf(io: FlowIo, args: PayoutArgs | undefined): Promise<Entry | undefined> {
  const { t } = io;
  const resume = args?.resume;
  if (resume) return { draft: resume.draft, ...(resume.lastMode ? { lastMode: resume.lastMode } : {}) };
  if (args?.requoteOrderId) {
    const previous = await fromOrder(io, args.requoteOrderId);
    if (!previous) return { notice: t("payout:entry.requote_gone") };
    const key = `requote:${args.requoteKey ?? args.requoteOrderId}`;
    const { draft, amount } = previous;
    const requoteOf = args.requoteOrderId;
    // A naira-funded order is quoted again from the naira amount screen; a request's amount stays the request's.
    if (previous.naira && !draft.requestId) return { draft, key, lastMode: "NGNKOBO", requoteOf };
    return { draft, amount, key, requoteOf, ...(previous.naira ? { choose: {} } : {}) };
  }
  if (args?.requestToken) {
    const opened = await openRequest(io, args.requestToken);
    return opened ? { ...opened, choose: {} } : undefined;
  }
  if (!args?.recipientToken) return {};
  const draft = await fromSaved(io, args.recipientToken);
  if (!draft) return { notice: t("payout:entry.link_gone") };
  if (!args.amount || !args.quoteKey) return { draft };
  const choose = args.repeatId ? { repeatId: args.repeatId } : {};
  return { draft, amount: args.amount, key: `repeat-quote:${args.quoteKey}`, choose };
}

/** "How will you pay?" for an amount already set, where naira may pay it; a repeat's answer is remembered. */
async function choosePayMethod(
  io: FlowIo,
  draft: Draft,
  amount: AmountChoice,
  repeatId: string | undefined,
): Promise<PayMethod> {
  if (!offersNairaFor(draft, amount)) return "lightning";
  const userId = io.userId;
  const read = repeatId
    ? await io.call(
        "repeat-method",
        async (deps) => (await deps.store.repeats.get(repeatId))?.payWith ?? null,
      )
    : undefined;
  const method = await askPayMethod(io, draft, amount, (read?.ok && read.value) || "lightning");
  if (repeatId) {
    await io.call("repeat-method-chosen", (deps) =>
      deps.store.repeats.rememberPayMethod(repeatId, userId, method),
    );
  }
  return method;
}

function targetOf(draft: Draft): NairaQuoteInput["amount"]["currency"] {
  return currencyOfCountry(draft.country) as NairaQuoteInput["amount"]["currency"];
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
