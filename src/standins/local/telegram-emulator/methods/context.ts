import type { Logger } from "pino";
import type { Params } from "../params.ts";
import type { UpdateQueue } from "../updates.ts";
import type { WebhookPusher } from "../webhook.ts";
import type { World } from "../world.ts";

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
