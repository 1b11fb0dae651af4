import { InputFile } from "grammy";
import type { FlowContext, FlowConversation } from "#src/bot/context.js";
import { FlowIo } from "#src/bot/flow/flow-io.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { amountErrorText } from "#src/bot/payout/amount.js";
import { PAYOUT_SCREENS, payoutAction } from "#src/bot/payout/callback-data.js";
import { chooseCountry, chooseRecipient } from "#src/bot/payout/country.js";
import { actionsKeyboard } from "#src/bot/payout/keyboards.js";
import { type Draft, failureText, promptText } from "#src/bot/payout/prompts.js";
import { pausedCorridors } from "#src/bot/rules/pauses.js";
import { checkAmount } from "#src/bot/rules/payout-amount.js";
import { type Minimums, minimums } from "#src/bot/rules/payout-minimums.js";
import { escapeHtml } from "#src/i18n/index.js";
import { currencyOfCountry, formatMoney } from "#src/money/index.js";
import { type MoneyRequest, RequestLimitError } from "#src/store/index.js";
import { requestCard } from "./card.ts";

export const REQUEST_CONVERSATION = "request";

/**
 * Asking for money (/request, the menu, start=request): the requester's own beneficiary through the payout flow's
 * recipient steps (country → details → name enquiry where the corridor has one), an amount in local money, then
 * the request card: a QR photo of the link, the link, Share (inline mode) and Cancel.
 */
export async function requestFlow(conversation: FlowConversation, ctx: FlowContext): Promise<void> {
  const io = new FlowIo(conversation, ctx, PAYOUT_SCREENS);
  const { t } = io;
  const loaded = await io.call("minimums", (deps) => minimums(deps));
  const pauses = await io.call("paused-corridors", (deps) => pausedCorridors(deps));
  const mins: Minimums = loaded.ok ? loaded.value : {};
  const paused = pauses.ok ? pauses.value : [];

  const { draft: chosen, minor } = await chooseWhatToAsk(io, mins, paused);
  const amount = { amount: minor, currency: currencyOfCountry(chosen.country) };
  const created = await io.call("request-create", async (deps) => {
    try {
      const request = await deps.store.requests.create(
        {
          userId: io.userId,
          chatId: io.chatId,
          corridor: chosen.country,
          beneficiary: { ...chosen.beneficiary } as Record<string, unknown>,
          label: chosen.label,
          name: chosen.name,
          amount,
        },
        deps.now(),
        deps.config.moneyRequests.ttlMs,
      );
      deps.logger.info({ corridor: chosen.country }, "money request created");
      return { request };
    } catch (error) {
      if (error instanceof RequestLimitError) return { limit: error.limit };
      throw error;
    }
  });
  if (!created.ok) {
    await io.show(() => failureText(io, created.error));
    return;
  }
  if ("limit" in created.value) {
    const { limit } = created.value;
    await io.show(() => t("request:create.limit", { limit }));
    return;
  }
  await io.show(() => t("request:create.done"));
  await sendRequestCard(io, created.value.request);
}

/** The requester's own beneficiary and the amount; "change recipient" at the amount starts over. */
async function chooseWhatToAsk(
  io: FlowIo,
  mins: Minimums,
  paused: Awaited<ReturnType<typeof pausedCorridors>>,
): Promise<{ draft: Draft; minor: number }> {
  for (;;) {
    const country = await chooseCountry(io, mins, io.t("request:create.intro"), paused, "requester");
    const draft = await chooseRecipient(io, country, "requester");
    const minor = await askLocalAmount(io, draft, mins[draft.country]);
    if (minor !== undefined) return { draft, minor };
  }
}

/** The amount the requester wants to receive, in local money only; undefined: "change recipient". */
async function askLocalAmount(
  io: FlowIo,
  draft: Draft,
  minimum: number | undefined,
): Promise<number | undefined> {
  const { t } = io;
  const target = currencyOfCountry(draft.country);
  const min = () =>
    minimum === undefined ? t("payout:country.min_usd") : formatMoney(minimum, target, io.locale);
  const answer = await promptText(
    io,
    () =>
      t("request:create.amount", {
        label: escapeHtml(draft.label),
        currency: t(`payout:currency.${target}`),
        min: min(),
      }),
    (text) => {
      const checked = checkAmount(text, { mode: target, target, minimum, locale: io.locale });
      // The payout screen also takes bitcoin units; a request is in the money it pays out in, nothing else.
      if (checked.ok && checked.currency !== target) {
        return {
          ok: false,
          error: t("request:create.local_only", { currency: t(`payout:currency.${target}`) }),
        };
      }
      return checked.ok
        ? { ok: true, value: checked.minor }
        : { ok: false, error: amountErrorText(io, checked, target, min()) };
    },
    { keyboard: () => actionsKeyboard(t, ["change_recipient"], "requester") },
  );
  if ("value" in answer) return answer.value;
  return answer.action === payoutAction("change_recipient") ? undefined : askLocalAmount(io, draft, minimum);
}

/**
 * The request card (QR photo, caption with the link, Share and Cancel), then the menu. The card is remembered: once
 * the request is paid, it is edited to say so and loses its buttons (src/events/request-notices.ts).
 */
async function sendRequestCard(io: FlowIo, request: MoneyRequest): Promise<void> {
  const { t, locale } = io;
  const cardId = await io.telegram(async (outside) => {
    const card = requestCard(request, t, locale, outside.me.username);
    const photo = await outside.replyWithPhoto(new InputFile(card.png, "request.png"), {
      caption: card.caption,
      parse_mode: "HTML",
      reply_markup: card.keyboard,
    });
    await outside.reply(t("request:create.next"), { reply_markup: mainMenuKeyboard(t) });
    return photo.message_id;
  });
  await io.call("request-card", (deps) => deps.store.requests.rememberCard(request.token, cardId));
}
