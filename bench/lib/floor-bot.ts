import { sequentialize } from "@grammyjs/runner";
import { RedisAdapter } from "@grammyjs/storage-redis";
import { Bot, type Context, InlineKeyboard, type SessionFlavor, session } from "grammy";
import type { Redis } from "ioredis";
import { BENCH_BOT, BENCH_TOKEN, type LocalTelegram } from "./local-telegram.ts";

/**
 * The floor: the least a correct grammY bot with Redis sessions does per update — sequentialize by chat, read and
 * write the session through the same RedisAdapter, answer with one message. Same local Telegram, same process.
 */
type FloorContext = Context & SessionFlavor<{ seen: number }>;

export function createFloorBot(redis: Redis, tg: LocalTelegram): Bot<FloorContext> {
  const bot = new Bot<FloorContext>(BENCH_TOKEN, { botInfo: BENCH_BOT, client: tg.clientOptions() });
  const chatKey = (ctx: Context) => ctx.chat?.id.toString() ?? ctx.from?.id.toString();
  bot.use(sequentialize(chatKey));
  bot.use(
    session({
      initial: () => ({ seen: 0 }),
      getSessionKey: chatKey,
      storage: new RedisAdapter<{ seen: number }>({ instance: redis, ttl: 30 * 24 * 3600 }),
    }),
  );
  const keyboard = new InlineKeyboard().text("OK", "floor:ok");
  bot.use(async (ctx) => {
    ctx.session.seen += 1;
    await ctx.api.sendMessage(ctx.chat?.id ?? ctx.from?.id ?? 0, `Update ${ctx.session.seen}`, {
      reply_markup: keyboard,
    });
  });
  return bot;
}
