import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request as it reached the stand-in. */
export interface Arrival {
  method: string;
  path: string;
  contentType: string | undefined;
  body: Buffer;
}

type Answer = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

/** A Message, as Telegram answers sendMessage and editMessageText. */
const SENT: Answer = (_req, res) =>
  res
    .writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ ok: true, result: { message_id: 7, date: 0, chat: { id: 1, type: "private" } } }));

/** Telegram refusing a call, as it does: the HTTP status is the error code. */
export function refusal(errorCode: number, description: string): Answer {
  return (_req, res) =>
    res
      .writeHead(errorCode, { "content-type": "application/json" })
      .end(JSON.stringify({ ok: false, error_code: errorCode, description }));
}

/**
 * A Bot API stand-in over real HTTP on loopback, for the bot's Telegram client: records what arrives and answers as
 * the test says (a sent Message until told otherwise; `reset` goes back to that and forgets the arrivals).
 */
export async function startBotApiStandIn() {
  const arrivals: Arrival[] = [];
  /** Requests whose connection closed before they were answered. */
  let abandoned = 0;
  let answer = SENT;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const body = Buffer.concat(parts);
      arrivals.push({
        method: req.method ?? "",
        path: req.url ?? "",
        contentType: req.headers["content-type"],
        body,
      });
      res.on("close", () => {
        if (!res.writableFinished) abandoned += 1;
      });
      answer(req, res, body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    apiRoot: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    abandoned: () => abandoned,
    answerWith(next: Answer) {
      answer = next;
    },
    reset() {
      arrivals.length = 0;
      abandoned = 0;
      answer = SENT;
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
