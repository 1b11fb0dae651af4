import { Composer, InlineKeyboard } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { enterFlow, FLOWS } from "#src/bot/flow/enter.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { menuData } from "#src/bot/flow/menu-data.js";
import { escapeHtml } from "#src/i18n/index.js";
import { maskDigitRuns } from "#src/log/mask.js";
import { COUNTRY_FLAGS } from "#src/money/index.js";
import type { Recipient } from "#src/store/index.js";
import { RECIPIENT_ID, RECIPIENTS_OFFSET, recipientsData } from "./callback-data/recipients.ts";
import { recipientRepeatButton } from "./repeats/entry.ts";

const RECIPIENTS_PAGE_SIZE = 5;
/** Start a payout to a saved recipient (leaving any flow in progress first: only one flow at a time). */
export async function enterPayoutFor(ctx: BotContext, recipient: Recipient): Promise<void> {
  await enterFlow(ctx, FLOWS.payout, { recipientToken: recipient.token });
}

/** t.me deep link that opens a payout to this recipient; the token is a short server-side id, never data. */
const shareLink = (botUsername: string, recipient: Pick<Recipient, "token">) =>
  `https://t.me/${botUsername}?start=send_${recipient.token}`;

/**
 * Labels are stored masked ("GTBANK PLC ••6789 · ADA OBI"); masking long digit runs again guards against an
 * older record that kept a full account or phone number. Escaped for HTML.
 */
export const maskedLabel = (label: string) => escapeHtml(maskDigitRuns(label));

const labelOf = (recipient: Recipient) => maskedLabel(recipient.label);

async function renderRecipientsPage(
  ctx: BotContext,
  requestedOffset: number,
): Promise<{ text: string; keyboard: InlineKeyboard }> {
  const all = await ctx.deps.store.recipients.list(ctx.from!.id);
  if (all.length === 0) return { text: ctx.t("recipients:empty"), keyboard: mainMenuKeyboard(ctx.t) };
  const lastPage = Math.floor((all.length - 1) / RECIPIENTS_PAGE_SIZE) * RECIPIENTS_PAGE_SIZE;
  const offset = Math.min(Math.max(0, Math.floor(requestedOffset) || 0), lastPage);
  const page = all.slice(offset, offset + RECIPIENTS_PAGE_SIZE);

  const lines = page.map((recipient, index) =>
    ctx.t("recipients:line", {
      n: offset + index + 1,
      flag: COUNTRY_FLAGS[recipient.corridor],
      label: labelOf(recipient),
    }),
  );
  const keyboard = new InlineKeyboard();
  page.forEach((recipient, index) => {
    const n = offset + index + 1;
    keyboard
      .text(
        ctx.t("recipients:button.send", { n }),
        recipientsData.pack({ action: "send", value: recipient.id }),
      )
      .url(ctx.t("recipients:button.share", { n }), shareLink(ctx.me.username, recipient))
      .text(
        ctx.t("recipients:button.delete", { n }),
        recipientsData.pack({ action: "del", value: recipient.id }),
      )
      .add(recipientRepeatButton(ctx.t, recipient.id, n))
      .row();
  });
  if (offset > 0) {
    const previous = String(Math.max(0, offset - RECIPIENTS_PAGE_SIZE));
    keyboard.text(
      ctx.t("recipients:button.previous"),
      recipientsData.pack({ action: "page", value: previous }),
    );
  }
  if (offset + page.length < all.length) {
    const next = String(offset + RECIPIENTS_PAGE_SIZE);
    keyboard.text(ctx.t("recipients:button.next"), recipientsData.pack({ action: "page", value: next }));
  }
  const title = ctx.t("recipients:title", { from: offset + 1, to: offset + page.length, total: all.length });
  return { text: [title, "", ...lines, "", ctx.t("recipients:share_hint")].join("\n"), keyboard };
}

async function editInPlace(ctx: BotContext, text: string, keyboard: InlineKeyboard): Promise<void> {
  await ctx.editMessageText(text, { parse_mode: "HTML", reply_markup: keyboard }).catch((error: unknown) => {
    if (!/message is not modified/i.test(String(error))) throw error;
  });
}

/** /recipients: saved recipients with Send again, a shareable deep link, and Delete (with confirmation). */
function recipientsComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  const show = async (ctx: BotContext) => {
    const { text, keyboard } = await renderRecipientsPage(ctx, 0);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  };
  composer.chatType("private").command("recipients", show);
  composer.callbackQuery(menuData.filter({ action: "recipients" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await show(ctx);
  });

  const value = (ctx: BotContext) => recipientsData.unpack(ctx.callbackQuery!.data!).value;

  composer.callbackQuery(recipientsData.filter({ action: "page", value: RECIPIENTS_OFFSET }), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { text, keyboard } = await renderRecipientsPage(ctx, Number(value(ctx)));
    await editInPlace(ctx, text, keyboard);
  });
  composer.callbackQuery(recipientsData.filter({ action: "keep", value: RECIPIENTS_OFFSET }), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { text, keyboard } = await renderRecipientsPage(ctx, Number(value(ctx)));
    await editInPlace(ctx, text, keyboard);
  });

  composer.callbackQuery(recipientsData.filter({ action: "send", value: RECIPIENT_ID }), async (ctx) => {
    const recipient = await ctx.deps.store.recipients.get(ctx.from.id, value(ctx));
    if (!recipient) {
      await ctx.answerCallbackQuery({ text: ctx.t("recipients:toast.not_found") });
      return;
    }
    await ctx.answerCallbackQuery({ text: ctx.t("recipients:toast.opening") });
    await enterPayoutFor(ctx, recipient);
  });

  composer.callbackQuery(recipientsData.filter({ action: "del", value: RECIPIENT_ID }), async (ctx) => {
    const recipient = await ctx.deps.store.recipients.get(ctx.from.id, value(ctx));
    if (!recipient) {
      await ctx.answerCallbackQuery({ text: ctx.t("recipients:toast.not_found") });
      return;
    }
    await ctx.answerCallbackQuery();
    const text = ctx.t("recipients:confirm_delete", {
      flag: COUNTRY_FLAGS[recipient.corridor],
      label: labelOf(recipient),
    });
    const keyboard = new InlineKeyboard()
      .text(
        ctx.t("recipients:button.delete_yes"),
        recipientsData.pack({ action: "delok", value: recipient.id }),
      )
      .text(ctx.t("recipients:button.delete_no"), recipientsData.pack({ action: "keep", value: "0" }));
    await editInPlace(ctx, text, keyboard);
  });

  composer.callbackQuery(recipientsData.filter({ action: "delok", value: RECIPIENT_ID }), async (ctx) => {
    const recipient = await ctx.deps.store.recipients.get(ctx.from.id, value(ctx));
    const removed = recipient ? await ctx.deps.store.recipients.remove(ctx.from.id, recipient.id) : false;
    await ctx.answerCallbackQuery({
      text: ctx.t(removed ? "recipients:toast.deleted" : "recipients:toast.not_found"),
    });
    const { text, keyboard } = await renderRecipientsPage(ctx, 0);
    const note =
      removed && recipient ? `${ctx.t("recipients:deleted", { label: labelOf(recipient) })}\n\n` : "";
    await editInPlace(ctx, `${note}${text}`, keyboard);
  });

  return composer;
}

export function recipientsFeature(): Feature {
  return { name: "recipients", composer: recipientsComposer() };
}
