import type { BotContext } from "#src/bot/context.js";
import { escapeHtml } from "#src/i18n/index.js";
import { currencyOfCountry, formatMoney, parseAmount } from "#src/money/index.js";
import { LIMIT_CORRIDORS, type LimitCorridor } from "#src/store/index.js";
import { type CommandContext, type OpsComposer, replyHtml } from "./command-tools.ts";

/**
 * /limits: daily payout limits per user and corridor (the quote card then shows what is left; amounts above it are
 * refused with what remains). `/limits` lists them, `/limits NG 500000` sets one in the corridor's currency,
 * `/limits NG off` removes it.
 */
export function registerLimits(ops: OpsComposer): void {
  ops.command("limits", handleLimitsCommand);
}

async function handleLimitsCommand(ctx: CommandContext): Promise<void> {
  const [code, ...rest] = ctx.match.trim().split(/\s+/).filter(Boolean);
  const store = ctx.deps.store;
  if (code === undefined) return replyHtml(ctx, await limitsList(ctx));
  const corridor = code.toUpperCase();
  const value = rest.join(" ");
  if (!isLimitCorridor(corridor) || value === "") {
    return replyHtml(ctx, `${ctx.t("admin:limits.invalid")}\n\n${ctx.t("admin:limits.usage")}`);
  }
  const currency = currencyOfCountry(corridor);
  let amount: number | undefined;
  if (value.toLowerCase() !== "off") {
    const parsed = parseAmount(value, { currency, locale: ctx.locale });
    if (!parsed.ok || parsed.currency !== currency || parsed.minor <= 0) {
      return replyHtml(ctx, `${ctx.t("admin:limits.invalid")}\n\n${ctx.t("admin:limits.usage")}`);
    }
    amount = parsed.minor;
  }
  await store.settings.setDailyLimit(corridor, amount);
  await store.audit.record({
    actor: ctx.from?.id ?? "system",
    action: amount === undefined ? "limits.off" : "limits.set",
    details: { corridor, ...(amount === undefined ? {} : { amount: String(amount) }) },
  });
  const country = ctx.t(`payout:country.names.${corridor}`);
  const done =
    amount === undefined
      ? ctx.t("admin:limits.removed", { country })
      : ctx.t("admin:limits.set", { country, amount: escapeHtml(formatMoney(amount, currency, ctx.locale)) });
  return replyHtml(ctx, `${done}\n\n${await limitsList(ctx)}`);
}

async function limitsList(ctx: BotContext): Promise<string> {
  const limits = await ctx.deps.store.settings.dailyLimits();
  const lines = LIMIT_CORRIDORS.map((corridor) => {
    const limit = limits[corridor];
    const country = ctx.t(`payout:country.names.${corridor}`);
    return limit === undefined
      ? ctx.t("admin:limits.line_none", { country })
      : ctx.t("admin:limits.line", {
          country,
          amount: escapeHtml(formatMoney(limit, currencyOfCountry(corridor), ctx.locale)),
        });
  });
  return [ctx.t("admin:limits.title"), ...lines, "", ctx.t("admin:limits.usage")].join("\n");
}

function isLimitCorridor(value: string): value is LimitCorridor {
  return (LIMIT_CORRIDORS as readonly string[]).includes(value);
}
