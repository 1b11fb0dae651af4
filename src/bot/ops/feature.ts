import { Composer, type Middleware } from "grammy";
import type { BotContext } from "#src/bot/context.js";
import type { Feature } from "#src/bot/flow/feature.js";
import { createAlerts } from "./alerts/alerts.ts";
import { broadcastConversation } from "./broadcast/conversation.ts";
import { registerInfoCommands } from "./info.ts";
import { registerLimits } from "./limits.ts";
import { registerLookupCommands } from "./lookup.ts";
import { maintenanceGuard } from "./maintenance.ts";
import { registerOperations } from "./operations.ts";
import { isOpsContext, opsRoleChanges } from "./roles.ts";
import { registerTreasury } from "./treasury/commands.ts";
import { registerUserCommands } from "./users.ts";
import { withdrawConversation } from "./withdraw/conversation.ts";

/** The ops group's command menu (descriptions: admin:commands.<command>). */
const ADMIN_COMMANDS = [
  "stats",
  "health",
  "wallets",
  "profile",
  "order",
  "tx",
  "user",
  "withdraw_ngn",
  "withdraw_btc",
  "maintenance",
  "limits",
  "broadcast",
  "block",
  "unblock",
  "merchant",
  "merchants",
  "simulate",
  "cancel",
] as const;

/**
 * Ops commands, buttons and flows, only inside the admin group and only for ops admins (isOpsContext). Anything
 * else passes straight through to the rest of the bot, so outside the group an ops command behaves exactly like an
 * unknown command (the menu reply in private chats, silence in groups) and nobody learns that it exists. A flow's
 * steps pass the same gate: an admin demoted halfway through can no longer drive it.
 */
export function adminFeature(): Feature {
  const composer = new Composer<BotContext>();
  const ops = new Composer<BotContext>();
  registerInfoCommands(ops);
  registerLookupCommands(ops);
  registerUserCommands(ops);
  registerTreasury(ops);
  registerOperations(ops);
  registerLimits(ops);
  composer.use(opsRoleChanges());
  composer.chatType(["group", "supergroup"]).filter(isOpsContext, ops);
  return {
    name: "admin",
    composer,
    conversations: [opsOnly(withdrawConversation()), opsOnly(broadcastConversation())],
    commands: { adminGroup: [...ADMIN_COMMANDS] },
    services: (runtime) => createAlerts(runtime),
  };
}

/**
 * An ops flow (only ever active in the ops group) sees only ops admins' messages and button presses, its only
 * steps: a role change (chat_member) goes straight on to opsRoleChanges, whatever flow is waiting.
 */
function opsOnly(conversation: Middleware<BotContext>): Middleware<BotContext> {
  const gate = new Composer<BotContext>();
  gate.on(["message", "callback_query"]).filter(isOpsContext, conversation);
  return gate;
}

/** First in the feature list: answers new-quote entry points while ops paused quotes. */
export function maintenanceFeature(): Feature {
  return { name: "maintenance", composer: maintenanceGuard() };
}
