import type { IncomingMessage, ServerResponse } from "node:http";
import type { Update } from "grammy/types";
import { BodyTooLargeError, readRawBody } from "#src/http/body.js";
import type { Logger } from "#src/log/logger.js";
import type { UpdateInbox } from "./inbox.ts";

/** Telegram's updates are far below this; a larger body is not an update we want. */
const UPDATE_BODY_LIMIT = 1024 * 1024;

/**
 * The Telegram webhook route's handler (the HTTP server checks the secret token first): record the update and
 * answer 200 at once. Handling happens from the inbox, so a slow payout API never makes Telegram wait, time out
 * and deliver the same update again. Only a failure to record answers 500 (Telegram retries later).
 */
export function inboxWebhookHandler(inbox: UpdateInbox, logger: Logger) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let update: Update;
    try {
      const body = await readRawBody(req, UPDATE_BODY_LIMIT);
      update = JSON.parse(body.toString("utf8")) as Update;
    } catch (error) {
      const status = error instanceof BodyTooLargeError ? 413 : 400;
      res.writeHead(status, { "content-type": "application/json" }).end('{"ok":false}');
      return;
    }
    if (!update || typeof update !== "object" || !Number.isSafeInteger(update.update_id)) {
      res.writeHead(400, { "content-type": "application/json" }).end('{"ok":false}');
      return;
    }
    try {
      await inbox.record([update]);
    } catch (error) {
      logger.error({ err: error, updateId: update.update_id }, "could not record a webhook update");
      res.writeHead(500, { "content-type": "application/json" }).end('{"ok":false}');
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  };
}
