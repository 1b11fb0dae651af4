import { createConversation } from "@grammyjs/conversations";
import type { BotContext, FlowContext, FlowConversation } from "#src/bot/context.js";
import { askScreen, clearButtons } from "#src/bot/flow/screen.js";
import { priceServiceFor, satsValue } from "#src/bot/rules/price.js";
import { COUNTRY_FLAGS, type Country, currencyOfCountry, isCountry, parseAmount } from "#src/money/index.js";
import { MAX_RATE_ALERTS, RateAlertLimitError } from "#src/store/index.js";
import { ALERT_SATS, alertMoney, alertSats } from "./render.ts";

export const RATE_ALERT_CONVERSATION = "ratealert";

interface RateAlertArgs {
  country: Country;
}

/** The largest threshold accepted, in minor units (far above any real rate; keeps the input bounded). */
const MAX_THRESHOLD = 1_000_000_000_000;

/** The step takes text only; its one button (❌) belongs to the cancel feature. */
const TEXT_ONLY = { filter: () => /(?!)/, unpack: () => ({ action: "" }), pack: () => "" };

type Saved = { ok: true; threshold: number } | { ok: false; limit: number };

/**
 * /alert <corridor> and the 🔔 buttons: "100,000 sats buy ₦… now; above how much should I tell you?" → a threshold
 * in local money (parseAmount; above today's value, or the alert would fire at once) → armed. One alert per
 * prompt even if the update is handled twice (runOnce on the answer's message).
 */
async function rateAlertFlow(
  conversation: FlowConversation,
  ctx: FlowContext,
  args?: RateAlertArgs,
): Promise<void> {
  const country = args?.country;
  const userId = ctx.from?.id;
  if (!isCountry(country) || userId === undefined || ctx.chat === undefined) return;
  const deps = ctx.deps;
  const armed = await conversation.external(async () => (await deps.store.rateAlerts.list(userId)).length);
  if (armed >= MAX_RATE_ALERTS) {
    await ctx.reply(ctx.t("ratealert:full", { max: MAX_RATE_ALERTS }), { parse_mode: "HTML" });
    return;
  }
  const value = await conversation.external(() => alertSatsValue(deps, country));
  const currency = currencyOfCountry(country);
  const names = (current: FlowContext) => ({
    flag: COUNTRY_FLAGS[country],
    country: current.t(`price:country.${country}`),
    sats: alertSats(current.locale),
    now: value === null ? "—" : alertMoney(value, country, current.locale),
  });
  let current = ctx;
  let text = ctx.t("ratealert:ask", names(ctx));
  for (;;) {
    const { messageId, input } = await askScreen(conversation, current, {
      text,
      rows: [],
      codec: TEXT_ONLY,
      acceptText: true,
      hint: (next) => next.t("ratealert:hint"),
    });
    current = input.ctx;
    await clearButtons(current, messageId);
    if (input.kind !== "text") continue;
    const parsed = parseAmount(input.text, { currency, locale: current.locale, max: MAX_THRESHOLD });
    if (!parsed.ok || parsed.currency !== currency) {
      text = current.t("ratealert:invalid", names(current));
      continue;
    }
    if (value !== null && parsed.minor <= value) {
      text = current.t("ratealert:already", {
        ...names(current),
        amount: alertMoney(parsed.minor, country, current.locale),
      });
      continue;
    }
    const key = `${current.chat!.id}:${input.messageId}`;
    const threshold = parsed.minor;
    const saved = await conversation.external(() => saveAlert(deps, key, { userId, country, threshold }));
    if (!saved.ok) {
      await current.reply(current.t("ratealert:full", { max: saved.limit }), { parse_mode: "HTML" });
      return;
    }
    await current.reply(
      current.t("ratealert:set", {
        ...names(current),
        amount: alertMoney(saved.threshold, country, current.locale),
      }),
      { parse_mode: "HTML" },
    );
    return;
  }
}

/** What ALERT_SATS buy in the corridor now (null: no price could be read; the prompt shows "—"). */
async function alertSatsValue(deps: FlowContext["deps"], country: Country): Promise<number | null> {
  try {
    return satsValue(await priceServiceFor(deps).get(country), ALERT_SATS);
  } catch {
    return null;
  }
}

/** The alert armed once per answer (`key`: its message), or refused when the user has the most allowed. */
function saveAlert(
  deps: FlowContext["deps"],
  key: string,
  alert: { userId: number; country: Country; threshold: number },
): Promise<Saved> {
  return deps.store.once.run("ratealert", key, async () => {
    try {
      await deps.store.rateAlerts.add(alert);
      return { ok: true, threshold: alert.threshold };
    } catch (error) {
      if (error instanceof RateAlertLimitError) return { ok: false, limit: error.limit };
      throw error;
    }
  });
}

export function rateAlertConversation() {
  return createConversation<BotContext, FlowContext>(rateAlertFlow, { id: RATE_ALERT_CONVERSATION });
}
