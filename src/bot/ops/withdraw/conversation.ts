import { createConversation } from "@grammyjs/conversations";
import type { BotContext, FlowContext, FlowConversation } from "#src/bot/context.js";
import { FLOWS } from "#src/bot/flow/enter.js";
import { clearButtons } from "#src/bot/flow/screen.js";
import { describePayload, namesFor, renderApprovalCard } from "#src/bot/rules/approval-card.js";
import { requestWithdrawal } from "#src/bot/rules/treasury.js";
import { collectBtcWithdrawal } from "./btc.ts";
import { collectNgnWithdrawal } from "./ngn.ts";
import { askButtons } from "./prompt.ts";

interface WithdrawArgs {
  kind: "ngn" | "btc";
}

/**
 * Treasury withdrawal, step one of four eyes: collect and check the details, show them exactly as the API will
 * get them, and on confirm post an approval request to the group. Nothing is sent here: a second admin approves
 * the request on its card (src/bot/rules/treasury.ts).
 */
async function withdrawFlow(conversation: FlowConversation, ctx: FlowContext, args?: WithdrawArgs) {
  const owner = ctx.from?.id;
  const chatId = ctx.chat?.id;
  if (owner === undefined || chatId === undefined) return;
  const collected =
    args?.kind === "btc"
      ? await collectBtcWithdrawal(conversation, ctx, owner)
      : await collectNgnWithdrawal(conversation, ctx, owner);

  let current = collected.ctx;
  const summary = describePayload(collected.payload, current).join("\n");
  const { messageId, input } = await askButtons(
    conversation,
    current,
    owner,
    `${summary}\n\n${current.t("admin:withdraw.confirm_prompt")}`,
    [[{ label: current.t("admin:withdraw.confirm_button"), action: "confirm" }]],
  );
  current = input.ctx;
  await clearButtons(current, messageId);

  const deps = current.deps;
  const requesterName = current.from?.username
    ? `@${current.from.username}`
    : (current.from?.first_name ?? "");
  const now = await conversation.now();
  // A double tap or a redelivered update must not post two requests: one per confirm screen.
  const record = await conversation.external(() =>
    deps.store.once.run("withdraw-request", `${chatId}:${messageId}`, () =>
      requestWithdrawal(deps, { payload: collected.payload, requestedBy: owner, requesterName, chatId, now }),
    ),
  );
  const names = await conversation.external(async () =>
    Object.fromEntries(await namesFor(deps.store.users, [record.requestedBy])),
  );
  const card = renderApprovalCard(
    record,
    current,
    new Map(Object.entries(names).map(([id, name]) => [Number(id), name])),
  );
  const posted = await current.reply(card.text, {
    parse_mode: "HTML",
    ...(card.keyboard ? { reply_markup: card.keyboard } : {}),
  });
  await conversation.external(() => deps.store.approvals.setMessage(record.id, posted.message_id));
}

export function withdrawConversation() {
  return createConversation<BotContext, FlowContext>(withdrawFlow, { id: FLOWS.withdraw });
}
