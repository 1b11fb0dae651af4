import type { Logger } from "pino";
import type { Params } from "#src/standins/local/telegram-emulator/params.js";
import type { UpdateQueue } from "#src/standins/local/telegram-emulator/updates.js";
import type { WebhookPusher } from "#src/standins/local/telegram-emulator/webhook.js";
import type { World } from "#src/standins/local/telegram-emulator/world.js";

export interface MethodContext {
  world: World;
  updates: UpdateQueue;
  webhook: WebhookPusher;
  /** Aborted when the client goes away (long polls stop waiting). */
  signal: AbortSignal;
  logger: Logger;
  callbackAnswerTimeoutMs: number;
}

export type Handler = (params: Params, context: MethodContext) => unknown;
