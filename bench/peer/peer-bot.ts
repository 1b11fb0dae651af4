import {
  type Conversation,
  type ConversationFlavor,
  conversations,
  createConversation,
} from "@grammyjs/conversations";
import { sequentialize } from "@grammyjs/runner";
import { RedisAdapter } from "@grammyjs/storage-redis";
import { Bot, type Context, InlineKeyboard, InputFile } from "grammy";
import type { Redis } from "ioredis";
import QRCode from "qrcode";
import type { Bank, PayoutApi } from "#src/api/index.js";
import { BENCH_BOT, BENCH_TOKEN, type LocalTelegram } from "../lib/local-telegram.ts";

/**
 * The peer: the NGN payout journey the way the grammY docs teach — one conversations v2 function, RedisAdapter
 * storage, the same API client and qrcode; no i18n, pauses, limits, outbox or inbox. Our button data, so the
 * bench's simulated users press the same buttons.
 */
type PeerContext = ConversationFlavor<Context>;
type PeerConversation = Conversation<PeerContext, Context>;

let bankList: Promise<Bank[]> | undefined;

async function searchBanks(api: PayoutApi, query: string) {
  bankList ??= api.listBanks("NG");
  const needle = query.trim().toLowerCase();
  return (await bankList)
    .filter((bank) => bank.bankName.toLowerCase().includes(needle))
    .slice(0, 6)
    .map(({ bankName, nipBankCode }) => ({ bankName, nipBankCode }));
}

const naira = (kobo: number) => `₦${(kobo / 100).toLocaleString("en-NG", { minimumFractionDigits: 2 })}`;

function payout(api: PayoutApi) {
  return async function send(conversation: PeerConversation, ctx: Context) {
    await ctx.reply("Where does the money go?", {
      reply_markup: new InlineKeyboard().text("🇳🇬 Nigeria", "po-c:NG").text("🇰🇪 Kenya", "po-c:KE"),
    });
    const country = await conversation.waitForCallbackQuery(/^po-c:NG$/, {
      otherwise: (other) => other.reply("Only Nigeria is open here; pick it above."),
    });
    await country.answerCallbackQuery();
    await ctx.reply("Type the recipient's bank (e.g. GTBank):");
    let bank: { bankName: string; nipBankCode: string } | undefined;
    while (!bank) {
      const query = await conversation.form.text();
      const banks = await conversation.external(() => searchBanks(api, query));
      if (banks.length === 0) {
        await ctx.reply("No bank matches that name; try again.");
        continue;
      }
      const keyboard = new InlineKeyboard();
      for (const found of banks) keyboard.text(found.bankName, `po-b:${found.nipBankCode}`).row();
      await ctx.reply("Which one?", { reply_markup: keyboard });
      const picked = await conversation.waitForCallbackQuery(/^po-b:\d+$/);
      await picked.answerCallbackQuery();
      const code = picked.callbackQuery.data.slice(5);
      bank = banks.find((found) => found.nipBankCode === code);
    }
    let enquiry: { accountName: string; accountNumber: string } | undefined;
    while (!enquiry) {
      await ctx.reply(`Account number at ${bank.bankName} (10 digits):`);
      const accountNumber = (await conversation.form.text()).trim();
      if (!/^\d{10}$/.test(accountNumber)) continue;
      const bankCode = bank.nipBankCode;
      const found = await conversation.external(async () => {
        const result = await api.nameEnquiry({ accountNumber, bankCode }).catch(() => undefined);
        return result && { accountName: result.accountName, accountNumber };
      });
      if (!found) {
        await ctx.reply("That account could not be verified.");
        continue;
      }
      await ctx.reply(`Is the recipient ${found.accountName}?`, {
        reply_markup: new InlineKeyboard().text("Yes", "po-a:name_ok").text("No", "po-a:change"),
      });
      const answer = await conversation.waitForCallbackQuery(/^po-a:/);
      await answer.answerCallbackQuery();
      if (answer.callbackQuery.data === "po-a:name_ok") enquiry = found;
    }
    await ctx.reply("How many naira should they get?");
    let amount = 0;
    while (amount <= 0) {
      const text = await conversation.form.text();
      amount = Math.round(Number(text.replaceAll(",", "")) * 100);
      if (!Number.isSafeInteger(amount) || amount <= 0) {
        amount = 0;
        await ctx.reply("Send a number, e.g. 10000.");
      }
    }

    const { accountNumber: bankAccountNumber, accountName: bankAccountName } = enquiry;
    const beneficiary = {
      bankAccountNumber,
      bankAccountName,
      bankCode: bank.nipBankCode,
      bankName: bank.bankName,
    };
    const quote = await conversation.external(async () => {
      const made = await api.createQuote({
        amount,
        sourceCurrency: "BTCSAT",
        targetCurrency: "NGNKOBO",
        paymentMethod: "LIGHTNING",
        paymentCurrency: "NGNKOBO",
        autopayout: true,
        beneficiary,
      });
      const pay = made.totalAmountInSourceCurrency ?? made.amountInSourceCurrency;
      return { id: made.id, invoice: made.invoice, pay, receive: made.amountInTargetCurrency };
    });
    const buttons = new InlineKeyboard()
      .text("Confirm", `po-ok:${quote.id.slice(0, 40)}`)
      .text("Cancel", "po-x");
    const card = `${enquiry.accountName} gets ${naira(quote.receive)}.\nYou pay ${quote.pay.toLocaleString("en")} sats.`;
    await ctx.reply(card, { reply_markup: buttons });
    const confirm = await conversation.waitForCallbackQuery(/^po-(ok|x)/);
    await confirm.answerCallbackQuery();
    if (confirm.callbackQuery.data === "po-x") {
      await ctx.reply("Cancelled.");
      return;
    }
    // The last step: nothing replays after it, so the QR is drawn once.
    const png = await QRCode.toBuffer(`lightning:${quote.invoice}`, { errorCorrectionLevel: "M", margin: 2 });
    await ctx.replyWithPhoto(new InputFile(png, "invoice.png"), {
      caption: `Pay this invoice within 5 minutes:\n<code>${quote.invoice}</code>`,
      parse_mode: "HTML",
    });
  };
}

export function createPeerBot(redis: Redis, tg: LocalTelegram, api: PayoutApi): Bot<PeerContext> {
  const bot = new Bot<PeerContext>(BENCH_TOKEN, { botInfo: BENCH_BOT, client: tg.clientOptions() });
  bot.use(sequentialize((ctx: Context) => ctx.chat?.id.toString()));
  bot.use(conversations({ storage: new RedisAdapter({ instance: redis, ttl: 2 * 3600 }) }));
  bot.use(createConversation(payout(api), "send"));
  bot.command("start", (ctx) =>
    ctx.reply("Send naira to a Nigerian bank account, paid in sats.", {
      reply_markup: new InlineKeyboard().text("Send money", "menu:send"),
    }),
  );
  bot.callbackQuery("menu:send", async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.conversation.enter("send");
  });
  return bot;
}
