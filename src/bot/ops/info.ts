import { isPayoutApiError } from "#src/api/index.js";
import type { BotContext } from "#src/bot/context.js";
import { activePause, pausedScopes, scopeNames } from "#src/bot/rules/pauses.js";
import { escapeHtml } from "#src/i18n/index.js";
import { maskDigits, maskSecret } from "#src/log/mask.js";
import { formatMoney, isCurrencyCode } from "#src/money/index.js";
import { type MaintenanceState, ORDER_STAGES, type WindowStats } from "#src/store/index.js";
import { formatWalletMoney } from "./alerts/render.ts";
import { apiFailure, type OpsComposer, replyHtml } from "./command-tools.ts";
import { replyStatsChart } from "./stats-chart.ts";

/** /stats, /wallets, /profile, /health. */
export function registerInfoCommands(ops: OpsComposer): void {
  ops.command("stats", showStats);
  ops.command("wallets", showWallets);
  ops.command("profile", showProfile);
  ops.command("health", showHealth);
}

const DAY_MS = 24 * 3600 * 1000;

function money(ctx: BotContext, sums: Record<string, number>): string {
  const parts = Object.entries(sums).map(([currency, amount]) =>
    isCurrencyCode(currency) ? formatMoney(amount, currency, ctx.locale) : `${amount} ${currency}`,
  );
  return escapeHtml(parts.join(" · ") || "—");
}

function windowBlock(ctx: BotContext, window: WindowStats): string {
  const stages = ORDER_STAGES.filter((stage) => window.byStage[stage] > 0)
    .map((stage) => `${ctx.t(`admin:stats.stage.${stage}`)} ${window.byStage[stage]}`)
    .join(" · ");
  const corridors = window.corridors.map((volume) =>
    ctx.t("admin:stats.corridor", {
      corridor: volume.corridor,
      kind: ctx.t(`admin:stats.kind.${volume.funding === "naira" ? "payout_naira" : volume.kind}`),
      orders: volume.orders,
      completed: volume.completed,
      paid: money(ctx, volume.paid),
      received: money(ctx, volume.received),
    }),
  );
  return [
    ctx.t("admin:stats.window", { name: ctx.t(`admin:stats.windows.${window.name}`), orders: window.orders }),
    stages || ctx.t("admin:stats.no_orders"),
    ...corridors,
    ...(window.naira.orders > 0
      ? [
          ctx.t("admin:stats.naira", {
            orders: window.naira.orders,
            completed: window.naira.completed,
            paid: escapeHtml(formatMoney(window.naira.paidKobo, "NGNKOBO", ctx.locale)),
          }),
        ]
      : []),
  ].join("\n");
}

async function showStats(ctx: BotContext): Promise<void> {
  // Orders are stamped on the app's clock (the API's), so their windows are counted on it too.
  const now = ctx.deps.now();
  const midnight = new Date(now);
  midnight.setUTCHours(0, 0, 0, 0);
  const store = ctx.deps.store;
  const [users, merchants, windows] = await Promise.all([
    store.users.count(),
    store.merchants.list(),
    store.stats.orderWindows(
      [
        { name: "today", since: midnight.getTime() },
        { name: "week", since: now - 7 * DAY_MS },
        { name: "month", since: now - 30 * DAY_MS },
      ],
      now,
    ),
  ]);
  const header = ctx.t("admin:stats.header", { users, merchants: merchants.length });
  await replyHtml(ctx, [header, ...windows.map((window) => windowBlock(ctx, window))].join("\n\n"));
  await replyStatsChart(ctx, now);
}

async function showWallets(ctx: BotContext): Promise<void> {
  try {
    const wallets = await ctx.deps.api.getWallets();
    const lines = wallets.map((wallet) =>
      ctx.t("admin:wallets.line", {
        currency: escapeHtml(wallet.currency),
        balance: escapeHtml(formatWalletMoney(wallet.balance, wallet.currency.toUpperCase(), ctx.locale)),
      }),
    );
    await replyHtml(ctx, [ctx.t("admin:wallets.title"), ...lines].join("\n"));
  } catch (error) {
    await replyHtml(ctx, apiFailure(ctx, error));
  }
}

async function showProfile(ctx: BotContext): Promise<void> {
  try {
    const profile = await ctx.deps.api.getUser();
    const account = profile.account;
    const text = ctx.t("admin:profile.text", {
      name: escapeHtml(profile.name ?? "—"),
      business: escapeHtml(profile.businessName ?? "—"),
      email: escapeHtml(profile.email ?? "—"),
      phone: escapeHtml(profile.phone ? maskDigits(profile.phone) : "—"),
      kyc: escapeHtml(profile.kycInfo?.status ?? "—"),
      type: escapeHtml(account?.type ?? "—"),
      status: escapeHtml(account?.status ?? "—"),
      apiKey: maskSecret(account?.apiKey),
      webhookUrl: escapeHtml(account?.webhook?.url ?? "—"),
      webhookActive: account?.webhook?.isActive ? "✅" : "❌",
      webhookSecret: maskSecret(account?.webhook?.secret),
      language: escapeHtml(account?.settings?.language ?? "—"),
      autopayout: account?.settings?.autopayout ? "✅" : "❌",
      sats:
        account?.totalSatsExchanged === undefined
          ? "—"
          : formatMoney(account.totalSatsExchanged, "BTCSAT", ctx.locale),
    });
    await replyHtml(ctx, text);
  } catch (error) {
    await replyHtml(ctx, apiFailure(ctx, error));
  }
}

async function showHealth(ctx: BotContext): Promise<void> {
  const deps = ctx.deps;
  const ports = deps.ops ?? {};
  const ok = ctx.t("admin:health.ok");
  const apiLine = await deps.api.ping().then(
    () => ok,
    (error: unknown) =>
      escapeHtml(isPayoutApiError(error) ? `${error.kind} ${error.status ?? ""}`.trim() : "error"),
  );
  const redisLine = await deps.store.ping().then(
    () => ok,
    () => ctx.t("admin:health.down"),
  );
  let queueLine = ctx.t("admin:health.not_wired");
  let deadLetters: number | undefined;
  if (ports.stats) {
    try {
      const stats = await ports.stats();
      deadLetters = 0;
      const parts: string[] = [];
      for (const [queue, counts] of Object.entries(stats)) {
        const depth =
          (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0) + (counts.prioritized ?? 0);
        if (!queue.endsWith("reconcile")) deadLetters += counts.failed ?? 0;
        parts.push(`${escapeHtml(queue)} ${depth}`);
      }
      queueLine = parts.join(" · ");
    } catch (error) {
      queueLine = escapeHtml(error instanceof Error ? error.message.slice(0, 100) : "error");
    }
  }
  const [last, forged, maintenance, broadcasting] = await Promise.all([
    deps.store.alerts.lastWebhookAt(),
    deps.store.alerts.forgedTotal(),
    deps.store.settings.maintenance(),
    deps.store.broadcasts.running(),
  ]);
  const text = ctx.t("admin:health.text", {
    api: apiLine,
    redis: redisLine,
    queues: queueLine,
    deadLetters: deadLetters === undefined ? "—" : deadLetters,
    lastWebhook: last ? escapeHtml(last) : ctx.t("admin:health.never"),
    forged,
    maintenance: maintenanceLine(ctx.t, maintenance),
    broadcast: broadcasting ? ctx.t("admin:health.broadcasting") : "—",
  });
  await replyHtml(ctx, text);
}

/** "running", "paused", or "paused: Nigeria, Buy bitcoin" (pauses that have lapsed by themselves are not shown). */
function maintenanceLine(t: BotContext["t"], state: MaintenanceState): string {
  const now = Date.now();
  if (activePause(state, undefined, now)) return t("admin:health.paused");
  const scopes = pausedScopes(state, now);
  return scopes.length > 0
    ? t("admin:health.paused_for", { scopes: scopeNames(t, scopes) })
    : t("admin:health.running");
}
