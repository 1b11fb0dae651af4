import { Composer } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import { enterFlow, FLOWS } from "#src/bot/flow/enter.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { linkData } from "./callback-data.ts";
import { miniAppRoutes } from "./dashboard/routes.ts";
import { createMerchantFeed } from "./feed.ts";
import { findOwnLink, showLinkDetails, showLinks } from "./links.ts";
import { newlinkConversation } from "./newlink/conversation.ts";

const MERCHANT_COMMANDS = ["newlink", "links", "link"] as const;

/**
 * Merchant tools in private chats: /newlink, /links, /link <ref>. They exist for everyone (listed in the menu);
 * users ops have not approved are told how to become a merchant.
 */
export function merchantFeature(): Feature {
  const composer = new Composer<BotContext>();
  const privateChats = composer.chatType("private");

  const merchantOnly = async (ctx: BotContext): Promise<number | undefined> => {
    const id = ctx.from?.id;
    const user = id === undefined ? undefined : await ctx.deps.store.users.get(id);
    if (id !== undefined && user?.merchant) return id;
    if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: ctx.t("merchant:not_merchant_short") });
    await ctx.reply(ctx.t("merchant:not_merchant", { id: id ?? "?" }), { parse_mode: "HTML" });
    return undefined;
  };

  privateChats.command("newlink", async (ctx) => {
    if ((await merchantOnly(ctx)) === undefined) return;
    await enterFlow(ctx, FLOWS.newlink);
  });

  privateChats.command("links", async (ctx) => {
    const merchantId = await merchantOnly(ctx);
    if (merchantId !== undefined) await showLinks(ctx, merchantId);
  });

  privateChats.command("link", async (ctx) => {
    const merchantId = await merchantOnly(ctx);
    if (merchantId === undefined) return;
    const query = ctx.match.trim();
    if (!query) {
      await ctx.reply(ctx.t("merchant:link.usage"), { parse_mode: "HTML" });
      return;
    }
    const link = await findOwnLink(ctx, merchantId, query);
    if (!link) {
      await ctx.reply(ctx.t("merchant:link.not_found"), { parse_mode: "HTML" });
      return;
    }
    await showLinkDetails(ctx, link);
  });

  privateChats.callbackQuery(linkData.filter(), async (ctx) => {
    const merchantId = ctx.from.id;
    const user = await ctx.deps.store.users.get(merchantId);
    const { ref } = linkData.unpack(ctx.callbackQuery.data);
    const link = user?.merchant ? await ctx.deps.store.paymentLinks.get(ref) : undefined;
    if (!link || link.merchantId !== merchantId) {
      await ctx.answerCallbackQuery({ text: ctx.t("merchant:link.not_found_short") });
      return;
    }
    await ctx.answerCallbackQuery();
    await showLinkDetails(ctx, link);
  });

  return {
    name: "merchant",
    composer,
    conversations: [newlinkConversation()],
    commands: { private: [...MERCHANT_COMMANDS] },
    services: ({ deps, telegram, raise, botToken }) => {
      // The merchant feed: a payment link's payments, told to its merchant.
      const feed = createMerchantFeed({ ...deps, telegram, alerts: { raise } });
      const paymentLink = async (event: Parameters<typeof feed>[0]) => {
        await feed(event);
        return false;
      };
      // The Mini App (its page and API) on the bot's own HTTP server.
      return { sinks: { paymentLink }, routes: miniAppRoutes(deps, botToken) };
    },
  };
}
