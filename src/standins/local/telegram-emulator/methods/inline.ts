import type { InlineQueryResultsButton } from "grammy/types";
import type { Handler } from "./context.ts";

/** answerInlineQuery: checked like Telegram (results, ids, the button), answered once within the time limit. */
const answerInlineQuery: Handler = (params, { world, callbackAnswerTimeoutMs }) => {
  const id = params.string("inline_query_id", "query ID is empty");
  const query = world.inline.pending.get(id);
  const expired = query !== undefined && world.now() - query.createdAt > callbackAnswerTimeoutMs;
  world.inline.answer(
    query,
    {
      results: params.json("results"),
      button: params.json<InlineQueryResultsButton>("button"),
      cacheTime: params.optInt("cache_time"),
      isPersonal: params.bool("is_personal"),
      nextOffset: params.optString("next_offset"),
    },
    expired,
  );
  return true;
};

export const inlineMethods: Record<string, Handler> = { answerInlineQuery };
