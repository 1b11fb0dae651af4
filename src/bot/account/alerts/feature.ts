import { Composer } from "grammy";
import { parseCountryArgument } from "#src/bot/account/price.js";
import type { BotContext } from "#src/bot/context.js";
import { enterFlow, FLOWS, leaveFlows } from "#src/bot/flow/enter.js";
import type { Feature, FeatureRuntime, Job } from "#src/bot/flow/feature.js";
import type { Country } from "#src/money/index.js";
import { rateAlertDeleteData, rateAlertNewData, rateAlertSendData } from "./callback-data.ts";
import { createRateAlertChecker } from "./checker.ts";
import { RATE_ALERT_CONVERSATION, rateAlertConversation } from "./flow.ts";
import { alertsScreen } from "./render.ts";

/**
 * Rate alerts: /alert [corridor], /alerts, the price card's "🔔 Alert me", removing an alert, and a fired
 * alert's "Send now" (the payout flow, straight to that corridor). The check itself runs on a schedule
 * (checker.ts), outside updates.
 */
export function rateAlertsFeature(): Feature {
  return {
    name: "rate-alerts",
    conversations: [rateAlertConversation()],
    composer: rateAlertsComposer(),
    commands: { private: ["alert", "alerts"] },
    services: (runtime) => ({ jobs: [rateAlertJob(runtime)] }),
  };
}

/** The scheduled check of armed alerts against fresh prices (default every 60 s), where the queue workers run. */
function rateAlertJob({ deps, telegram, languageOf, schedule }: FeatureRuntime): Job {
  const checker = createRateAlertChecker({
    ...deps,
    telegram,
    languageOf,
    everyMs: schedule.rateAlertEveryMs,
  });
  return {
    name: "rate-alerts",
    schedule: `every ${(schedule.rateAlertEveryMs ?? 60_000) / 1000} s`,
    where: "workers",
    run: () => checker.check(),
    start: () => checker.start(),
    stop: () => checker.stop(),
  };
}

async function startAlert(ctx: BotContext, country: Country): Promise<void> {
  await leaveFlows(ctx);
  await ctx.conversation.enter(RATE_ALERT_CONVERSATION, { country });
}

async function screenFor(ctx: BotContext, userId: number) {
  return alertsScreen(ctx.t, ctx.locale, await ctx.deps.store.rateAlerts.list(userId));
}

function rateAlertsComposer(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  const privateChats = composer.chatType("private");

  privateChats.command("alert", async (ctx) => {
    const argument = ctx.match.trim();
    const country = argument ? parseCountryArgument(argument) : undefined;
    if (country) return startAlert(ctx, country);
    const { text, keyboard } = await screenFor(ctx, ctx.from.id);
    await ctx.reply(argument ? `${ctx.t("ratealert:bad_argument")}\n\n${text}` : text, {
      parse_mode: "HTML",
      reply_markup: keyboard,
    });
  });

  privateChats.command("alerts", async (ctx) => {
    const { text, keyboard } = await screenFor(ctx, ctx.from.id);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  });

  composer.callbackQuery(rateAlertNewData.filter(), async (ctx) => {
    const { country } = rateAlertNewData.unpack(ctx.callbackQuery.data) as { country: Country };
    await ctx.answerCallbackQuery();
    await startAlert(ctx, country);
  });

  composer.callbackQuery(rateAlertSendData.filter(), async (ctx) => {
    const { country } = rateAlertSendData.unpack(ctx.callbackQuery.data) as { country: Country };
    await ctx.answerCallbackQuery();
    await enterFlow(ctx, FLOWS.payout, { country });
  });

  composer.callbackQuery(rateAlertDeleteData.filter(), async (ctx) => {
    const { id } = rateAlertDeleteData.unpack(ctx.callbackQuery.data);
    const removed = await ctx.deps.store.rateAlerts.remove(ctx.from.id, id);
    await ctx.answerCallbackQuery({ text: ctx.t(removed ? "ratealert:removed" : "ratealert:gone") });
    const { text, keyboard } = await screenFor(ctx, ctx.from.id);
    await ctx
      .editMessageText(text, { parse_mode: "HTML", reply_markup: keyboard })
      .catch((error: unknown) => {
        if (!/message is not modified/i.test(String(error))) throw error;
      });
  });

  return composer;
}
