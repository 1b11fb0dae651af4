import { fork } from "node:child_process";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Api } from "grammy";
import { jsonTransport } from "#src/bot/telegram-transport.js";
import { createTelegramFetch } from "#src/http/telegram-fetch.js";
import { startBenchRedis } from "../lib/redis.ts";
import { num, table } from "../lib/report.ts";
import { roundTripCpuMicros } from "../lib/round-trip.ts";

/**
 * What the I/O an update or a webhook event cannot avoid costs this process in CPU on this machine, each measured
 * with the other end in another process (so only our side counts): one Redis round trip (ioredis), one Bot API
 * call through the bot's own Telegram client (src/http/telegram-fetch.ts: undici, kept alive; a card-edit-sized
 * request and answer) alone and as the bot makes it (a grammY Api with src/bot/telegram-transport.ts, and without it
 * for comparison), and one webhook-sized POST served by node:http (the body read and parsed, a short JSON
 * answer). Times the count of each per event or per update, it is the floor under CPU per event / per update that
 * no amount of work on our own code removes.
 *
 *   node --import tsx bench/tools/io-costs.ts [count]
 */
const role = process.argv[2];
/** Calls of each kind measured (after a warm-up); the Redis figure takes four times as many. */
const COUNT = role && /^\d+$/.test(role) ? Number(role) : 5_000;
const here = fileURLToPath(import.meta.url);
const BODY = JSON.stringify({
  chat_id: 123_456_789,
  message_id: 42,
  text: "x".repeat(400),
  parse_mode: "HTML",
  reply_markup: { inline_keyboard: [[{ text: "Refresh", callback_data: "ord:refresh:0123456789" }]] },
});
const ANSWER = JSON.stringify({
  ok: true,
  result: { message_id: 42, chat: { id: 123_456_789, type: "private" }, date: 1, text: "y".repeat(400) },
});

const child = (args: string[]) => fork(here, args, { execArgv: ["--import", "tsx"] });
const message = <T>(from: ReturnType<typeof child>) =>
  new Promise<T>((resolve) => from.once("message", resolve));
const listen = async (server: ReturnType<typeof createServer>) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};

if (role === "answer") {
  // The other end of a Bot API call: answers every request with a card-edit-sized Message.
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(ANSWER));
  });
  process.send?.(await listen(server));
} else if (role === "post") {
  // The sender of webhook-sized POSTs, one after another on a kept-alive connection.
  const port = Number(process.argv[3]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port, method: "POST", path: "/webhooks/payout", agent },
        (res) => res.resume().on("end", resolve),
      );
      req.on("error", reject);
      req.setHeader("content-type", "application/json");
      req.end(BODY);
    });
  for (let i = 0; i < Number(process.argv[4]); i++) await post();
  process.send?.("done");
  process.exit(0);
} else {
  const redis = await startBenchRedis();
  const redisMicros = await roundTripCpuMicros(redis.server.url, COUNT * 4);
  await redis.stop();

  const answering = child(["answer"]);
  const port = await message<number>(answering);
  const telegramFetch = createTelegramFetch();
  const call = async () =>
    JSON.parse(
      await (
        await telegramFetch(`http://127.0.0.1:${port}/bot1:token/editMessageText`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: BODY,
        })
      ).text(),
    ) as unknown;
  const { chat_id, message_id, text, parse_mode, reply_markup } = JSON.parse(BODY);
  const apiOf = (transport: boolean) => {
    const api = new Api("1:token", {
      apiRoot: `http://127.0.0.1:${port}`,
      fetch: createTelegramFetch() as unknown as typeof fetch,
    });
    if (transport) api.config.use(jsonTransport(api));
    return () => api.editMessageText(chat_id, message_id, text, { parse_mode, reply_markup });
  };
  const cpuPerCall = async (make: () => Promise<unknown>) => {
    for (let i = 0; i < 1_000; i++) await make();
    const before = process.cpuUsage();
    for (let i = 0; i < COUNT; i++) await make();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / COUNT;
  };
  // Three rounds in turns, the lowest of each kind kept: the first kind measured would otherwise pay the warm-up.
  const kinds = [call, apiOf(true), apiOf(false)];
  const lowest = kinds.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < 3; round++)
    for (const [index, make] of kinds.entries())
      lowest[index] = Math.min(lowest[index] ?? Number.POSITIVE_INFINITY, await cpuPerCall(make));
  const [callMicros, botCallMicros, envelopeCallMicros] = lowest as [number, number, number];
  answering.kill();

  // Served here; the first 1,000 requests warm up and are left out.
  const warmup = 1_000;
  let served = 0;
  let start = process.cpuUsage();
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      JSON.parse(Buffer.concat(parts).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    });
    served += 1;
    if (served === warmup) start = process.cpuUsage();
  });
  const sender = child(["post", String(await listen(server)), String(COUNT + warmup)]);
  await message(sender);
  const serving = process.cpuUsage(start);
  const serveMicros = (serving.user + serving.system) / (served - warmup);
  server.close();

  console.log(
    table(
      ["I/O", "CPU in this process"],
      [
        ["One Redis round trip (ioredis GET)", `${num(redisMicros, 1)} µs`],
        ["One Bot API call (src/http/telegram-fetch.ts, ~0.6 KB each way)", `${num(callMicros, 1)} µs`],
        [
          "The same call as the bot makes it (grammY Api + telegram-transport.ts)",
          `${num(botCallMicros, 1)} µs`,
        ],
        ["The same call through grammY's own per-call envelope", `${num(envelopeCallMicros, 1)} µs`],
        ["One webhook-sized POST served by node:http (~0.6 KB, parsed)", `${num(serveMicros, 1)} µs`],
      ],
    ),
  );
  process.exit(0);
}
