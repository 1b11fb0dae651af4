import { Api, GrammyError } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import type { Config } from "#src/config.js";
import type { Logger } from "#src/log/logger.js";
import { connectDependency, originOf } from "./dependencies.ts";

/**
 * getMe on a bare Api (no transformers): the bot's auto-retry waits out network errors silently with a growing
 * backoff, so the first contact is made here, where every failed try is logged. A refused token stops the start.
 */
export function connectTelegram(options: {
  token: string;
  config: Pick<Config, "telegram">;
  logger: Logger;
  delaysMs?: readonly number[];
}): Promise<UserFromGetMe> {
  const api = new Api(options.token, { apiRoot: options.config.telegram.apiRoot, timeoutSeconds: 10 });
  return connectDependency({
    name: "telegram",
    target: originOf(options.config.telegram.apiRoot),
    attempt: () => api.getMe(),
    logger: options.logger,
    delaysMs: options.delaysMs,
    fatal: (error) =>
      error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404)
        ? `the Bot API refused BOT_TOKEN (${error.error_code} ${error.description}); check the token from @BotFather`
        : undefined,
  });
}
