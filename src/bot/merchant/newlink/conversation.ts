import { createConversation } from "@grammyjs/conversations";
import { InlineKeyboard, InputFile } from "grammy";
import { isPayoutApiError, PAYOUT_API_ERROR_KINDS, PayoutApiError, type Speed } from "#src/api/index.js";
import type { BotContext, BotDeps, FlowContext, FlowConversation } from "#src/bot/context.js";
import { describeApiError, validationMessageKey } from "#src/bot/flow/api-errors.js";
import { FLOWS } from "#src/bot/flow/enter.js";
import { mainMenuKeyboard } from "#src/bot/flow/main-menu.js";
import { qrPng } from "#src/bot/flow/qr-png.js";
import { shortAddress } from "#src/bot/rules/bitcoin-address.js";
import { escapeHtml } from "#src/i18n/index.js";
import { formatMoney } from "#src/money/index.js";
import { ask, askAddress, askAmount, askCallbackUrl, askLine, askSpeed } from "./prompts.ts";

export interface LinkDraft {
  name: string;
  description: string;
  amount: number;
  address: string;
  speed: Speed;
  callbackUrl: string | undefined;
  /** Customers may also pay over Lightning (only where the account's links accept it: config). */
  lightning: boolean;
}

export type CreateOutcome =
  | { ok: true; ref: string; url: string }
  | { ok: false; kind: string; apiMessage: string | null; outcomeUnknown: boolean };

/**
 * /newlink (merchants): name → description → amount in naira (≥ the 6000-sat minimum at today's price) →
 * on-chain settlement address and speed → optional callback URL → summary → Create. Where the account's links
 * accept Lightning (config.paymentLinkLightning) the link takes bank transfer and Lightning, and the summary has a
 * button to switch between that and bank transfer only. The merchant gets the hosted link as a button, its QR code
 * and its reference; the link is remembered so its payments reach this chat.
 */
async function newlinkFlow(conversation: FlowConversation, ctx: FlowContext): Promise<void> {
  const merchantId = ctx.from?.id;
  if (merchantId === undefined || ctx.chat === undefined) return;
  const name = await askLine(conversation, ctx, ctx.t("merchant:newlink.name_prompt"), 60);
  const description = await askLine(
    conversation,
    name.ctx,
    name.ctx.t("merchant:newlink.description_prompt"),
    200,
    name.ctx.t("merchant:newlink.skip"),
  );
  let amount = await askAmount(conversation, description.ctx);
  const address = await askAddress(conversation, amount.ctx);
  const speed = await askSpeed(conversation, address.ctx);
  const callback = await askCallbackUrl(conversation, speed.ctx);
  let current = callback.ctx;
  const draft: LinkDraft = {
    name: name.value ?? "",
    description: description.value ?? "",
    amount: amount.amount,
    address: address.address,
    speed: speed.speed,
    callbackUrl: callback.url,
    lightning: current.deps.config.paymentLinkLightning,
  };

  for (;;) {
    const offerLightning = current.deps.config.paymentLinkLightning;
    const confirm = await ask(conversation, current, summary(current, draft), {
      buttons: [
        [{ label: current.t("merchant:newlink.create_button"), action: "confirm" }],
        ...(offerLightning ? [[methodsButton(current, draft)]] : []),
      ],
      acceptText: false,
      hint: current.t("merchant:newlink.button_hint"),
    });
    current = confirm.ctx;
    if (confirm.kind !== "button") continue;
    if (confirm.action === "methods") {
      draft.lightning = offerLightning && confirm.value === "ln";
      continue;
    }
    const deps = current.deps;
    const key = `${current.chat!.id}:${current.callbackQuery?.message?.message_id ?? current.update.update_id}`;
    await current.replyWithChatAction("typing").catch(() => undefined);
    const outcome = await conversation.external(() => createLink(deps, merchantId, key, draft));
    if (outcome.ok) {
      await deliverLink(current, draft, outcome);
      return;
    }
    const text = failureText(current, outcome);
    if (outcome.kind === "validation" && !outcome.outcomeUnknown) {
      // The API's business rule (e.g. "Amount too small"): fix the amount and confirm again.
      amount = await askAmount(conversation, current, text);
      draft.amount = amount.amount;
      current = amount.ctx;
      continue;
    }
    if (outcome.outcomeUnknown) {
      // POST /paymentlink takes no reference of ours and nothing lists links, so an uncertain create cannot be
      // read back: the merchant is told the truth (an unconfirmed link was never shown, so nobody can pay it).
      await current.reply(`${text}\n\n${current.t("safety:link.uncertain")}`, {
        parse_mode: "HTML",
        reply_markup: mainMenuKeyboard(current.t),
      });
      return;
    }
    await current.reply(`${text}\n\n${current.t("merchant:newlink.retry_hint")}`, { parse_mode: "HTML" });
  }
}

/** Switches the summary between bank transfer + Lightning and bank transfer only. */
function methodsButton(ctx: FlowContext, draft: LinkDraft) {
  return draft.lightning
    ? { label: ctx.t("paylink:bank_only_button"), action: "methods", value: "bt" }
    : { label: ctx.t("paylink:add_lightning_button"), action: "methods", value: "ln" };
}

/** paymentMethods of POST /paymentlink. */
function linkPaymentMethods(lightning: boolean): string[] {
  return lightning ? ["BANKTRANSFER", "LIGHTNING"] : ["BANKTRANSFER"];
}

function summary(ctx: FlowContext, draft: LinkDraft): string {
  const text = ctx.t("merchant:newlink.summary", {
    name: escapeHtml(draft.name),
    description: escapeHtml(draft.description || "—"),
    amount: escapeHtml(formatMoney(draft.amount, "NGNKOBO", ctx.locale)),
    address: escapeHtml(draft.address),
    speed: ctx.t(`merchant:speed.${draft.speed}`),
    callback: escapeHtml(draft.callbackUrl ?? "—"),
  });
  return draft.lightning ? `${text}\n${ctx.t("paylink:summary_lightning")}` : text;
}

/** Create the link once per confirm screen, remember it and its first order. JSON result (replayed from log). */
export async function createLink(
  deps: BotDeps,
  merchantId: number,
  key: string,
  draft: LinkDraft,
): Promise<CreateOutcome> {
  try {
    return await deps.store.once.run("plink", key, async () => {
      const created = await deps.api.createPaymentLink({
        name: draft.name,
        description: draft.description,
        type: "One_Time",
        settlementCurrency: "BTC",
        settlementMethod: "ONCHAIN",
        speed: draft.speed,
        paymentCurrency: "NGN",
        paymentMethods: linkPaymentMethods(draft.lightning),
        beneficiary: { onChainAddress: draft.address },
        amount: draft.amount,
        ...(draft.callbackUrl ? { callbackUrl: draft.callbackUrl } : {}),
      });
      await deps.store.paymentLinks.create({
        ref: created.paymentRef,
        merchantId,
        name: draft.name,
        description: draft.description,
        amount: draft.amount,
        url: created.paymentLink,
        address: draft.address,
        speed: draft.speed,
        ...(draft.callbackUrl ? { callbackUrl: draft.callbackUrl } : {}),
      });
      await deps.store.audit.record({
        actor: merchantId,
        action: "merchant.link_created",
        details: {
          ref: created.paymentRef,
          amount: draft.amount,
          currency: "NGNKOBO",
          lightning: draft.lightning,
        },
      });
      // Its first order, so the payment events can be routed here (renewed orders are looked up on demand).
      const link = await deps.api.getPaymentLinkOrders(created.paymentRef).catch(() => undefined);
      if (link)
        await deps.store.paymentLinks.linkOrders(
          created.paymentRef,
          link.orders.map((order) => order.orderId),
        );
      return { ok: true as const, ref: created.paymentRef, url: created.paymentLink };
    });
  } catch (error) {
    deps.logger.warn({ err: error, merchantId }, "payment link not created");
    return {
      ok: false,
      kind: isPayoutApiError(error) ? error.kind : "unexpected",
      apiMessage: isPayoutApiError(error) ? (error.apiMessage ?? null) : null,
      outcomeUnknown: isPayoutApiError(error) && error.outcomeUnknown,
    };
  }
}

function failureText(ctx: FlowContext, outcome: Extract<CreateOutcome, { ok: false }>): string {
  if (outcome.kind === "validation") return ctx.t(validationMessageKey(outcome.apiMessage ?? undefined));
  const kind = PAYOUT_API_ERROR_KINDS.find((candidate) => candidate === outcome.kind);
  if (!kind) return ctx.t("errors:unexpected");
  return describeApiError(
    new PayoutApiError({ kind, endpoint: "POST /paymentlink", detail: "as reported" }),
    ctx.t,
  ).text;
}

async function deliverLink(
  ctx: FlowContext,
  draft: LinkDraft,
  link: { ref: string; url: string },
): Promise<void> {
  const created = ctx.t("merchant:newlink.created", {
    name: escapeHtml(draft.name),
    amount: escapeHtml(formatMoney(draft.amount, "NGNKOBO", ctx.locale)),
    ref: escapeHtml(link.ref),
    address: escapeHtml(shortAddress(draft.address)),
  });
  const text = draft.lightning ? `${created}\n\n${ctx.t("paylink:created_lightning")}` : created;
  const button = /^https?:\/\//.test(link.url)
    ? { reply_markup: new InlineKeyboard().url(ctx.t("merchant:newlink.open_button"), link.url) }
    : {};
  await ctx.reply(text, { parse_mode: "HTML", link_preview_options: { is_disabled: true }, ...button });
  // The QR spec's quiet zone of 4 modules: less can stop cameras finding the code.
  const { png } = qrPng(link.url, { errorCorrectionLevel: "M", margin: 4, targetSize: 480 });
  await ctx.replyWithPhoto(new InputFile(png, "payment-link.png"), {
    caption: ctx.t("merchant:newlink.qr_caption", {
      name: escapeHtml(draft.name),
      ref: escapeHtml(link.ref),
    }),
    parse_mode: "HTML",
  });
}

export function newlinkConversation() {
  return createConversation<BotContext, FlowContext>(newlinkFlow, { id: FLOWS.newlink });
}
