import { type Api, Composer, InlineKeyboard, InputFile } from "grammy";
import type { BotContext, BotDeps } from "#src/bot/context.js";
import { escapeHtml, type TFunction } from "#src/i18n/index.js";
import { type Country, zoneName } from "#src/money/index.js";
import type { HeldLock, StatementRange } from "#src/store/index.js";
import { oneOf } from "#src/telegram/callback-data.js";
import { statementData } from "../callback-data/statement.ts";
import { csvStream } from "./csv.ts";
import { periodRange, STATEMENT_PERIODS, type StatementPeriod, statementFileName } from "./period.ts";
import { statementHeader, statementRow } from "./rows.ts";

/** Orders read from Redis at a time (one MGET each): what a statement holds in memory at most, besides its rows. */
const PAGE_SIZE = 100;

/** Everything one export needs once its press is answered (it runs after the update is handled). */
interface ExportJob {
  deps: Pick<BotDeps, "store" | "logger">;
  api: Api;
  t: TFunction;
  userId: number;
  period: StatementPeriod;
  range: StatementRange;
  clock: Country;
  claim: HeldLock;
}

/** The "⬇️ Export" button's callback data (under /history's list). */
export const exportButtonData = statementData.pack({ choice: "periods" });

function periodKeyboard(t: TFunction): InlineKeyboard {
  const keyboard = new InlineKeyboard();
  STATEMENT_PERIODS.forEach((period, index) => {
    keyboard.text(t(`history:export.period.${period}`), statementData.pack({ choice: period }));
    if (index % 2 === 1) keyboard.row();
  });
  return keyboard;
}

async function countOrders(job: ExportJob): Promise<number> {
  let count = 0;
  for await (const page of job.deps.store.statements.pages(job.userId, job.range, PAGE_SIZE))
    count += page.length;
  return count;
}

/** The header, then one row per order, read a page at a time as the upload pulls them. */
async function* statementLines(job: ExportJob): AsyncGenerator<string[]> {
  yield statementHeader(job.t);
  for await (const page of job.deps.store.statements.pages(job.userId, job.range, PAGE_SIZE)) {
    for (const order of page) yield statementRow(order, job);
  }
}

/**
 * Count the period's orders (the caption says how many, and an empty period gets a message, not an empty file),
 * then stream the CSV into sendDocument. The file is a supplier: a retried upload (auto-retry) reads the orders
 * again instead of reusing a spent stream. The claim is released however it ends.
 */
async function runExport(job: ExportJob): Promise<void> {
  const { api, t, userId } = job;
  const period = escapeHtml(t(`history:export.period.${job.period}`));
  try {
    const count = await countOrders(job);
    if (count === 0) {
      await api.sendMessage(userId, t("history:export.empty", { period }), { parse_mode: "HTML" });
      return;
    }
    const file = new InputFile(
      () => csvStream(statementLines(job)),
      statementFileName(job.period, job.range, job.clock),
    );
    await api.sendDocument(userId, file, {
      caption: t("history:export.caption", { period, count, zone: escapeHtml(zoneName(job.clock)) }),
      parse_mode: "HTML",
    });
  } finally {
    await job.claim.release();
  }
}

/**
 * A period's press: the user's one export is claimed (a second press while it runs gets a toast), the press is
 * answered, and the export runs detached from the update, so a long statement never holds up the chat's next
 * update. Whose orders and where the file goes come from the presser, never from the button.
 */
async function startExport(ctx: BotContext, clockOf: (ctx: BotContext) => Promise<Country>): Promise<void> {
  const { choice } = statementData.unpack(ctx.callbackQuery!.data!);
  const period = STATEMENT_PERIODS.find((known) => known === choice);
  if (!period) return;
  const { deps } = ctx;
  const userId = ctx.from!.id;
  const claim = await deps.store.statements.claim(userId);
  if (!claim) {
    await ctx.answerCallbackQuery({ text: ctx.t("history:export.toast.busy") });
    return;
  }
  let job: ExportJob;
  try {
    const clock = await clockOf(ctx);
    const range = periodRange(period, deps.now(), clock);
    job = { deps, api: ctx.api, t: ctx.t, userId, period, range, clock, claim };
    await ctx.answerCallbackQuery({ text: ctx.t("history:export.toast.preparing") });
  } catch (error) {
    await claim.release();
    throw error;
  }
  void runExport(job).catch(async (error: unknown) => {
    deps.logger.error({ err: error, period }, "order statement not sent");
    await job.api.sendMessage(userId, job.t("history:export.failed")).catch(() => undefined);
  });
}

/** "⬇️ Export" under /history offers the periods; a period's button sends that period's statement. */
export function statementComposer(clockOf: (ctx: BotContext) => Promise<Country>): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.callbackQuery(statementData.filter({ choice: "periods" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t("history:export.choose"), {
      parse_mode: "HTML",
      reply_markup: periodKeyboard(ctx.t),
    });
  });
  composer.callbackQuery(statementData.filter({ choice: oneOf(...STATEMENT_PERIODS) }), (ctx) =>
    startExport(ctx, clockOf),
  );
  return composer;
}
