import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Message } from "grammy/types";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { testRedisUrl } from "../support/redis.ts";
import { type SpawnedBot, spawnBot, spawnedBotEnv, stopAllBots } from "../support/spawn-bot.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { nigerianRecipient, quoteFor } from "./payout-support.ts";

/**
 * Two bot processes on one Redis behind a load balancer (a proxy in this test that picks the process per webhook
 * delivery), given the same chat's updates at once. The per-chat lease makes them take turns; with
 * UPDATE_LEASE=off the same scenario goes wrong, which shows the lease is what holds it.
 */
type Route = (body: string) => "a" | "b";

describe("one chat's updates at two processes", () => {
  let tg: TelegramEmulator;
  let sandbox: Sandbox;
  let redis: Redis;
  let proxy: Server;
  let proxyUrl: string;
  const targets: { a?: string; b?: string } = {};
  let route: Route = () => "a";

  beforeAll(async () => {
    redis = new Redis(testRedisUrl());
    await redis.flushdb();
    tg = await startTelegramEmulator({ defaultTimeoutMs: 20_000 });
    sandbox = await startSandbox({ port: 0 });
    // The load balancer: Telegram's webhook deliveries go to the process `route` picks; everything else to A.
    proxy = createServer((req, res) => {
      void (async () => {
        const body = await readBody(req);
        const telegram = req.url === "/webhooks/telegram";
        const target = telegram ? targets[route(body)] : targets.a;
        if (!target) return res.writeHead(503).end();
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === "string" && name !== "host" && name !== "content-length")
            headers[name] = value;
        const answer = await fetch(`${target}${req.url}`, {
          method: req.method ?? "POST",
          headers,
          ...(req.method === "GET" ? {} : { body }),
        }).catch(() => undefined);
        if (!answer) return res.writeHead(502).end();
        res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
      })();
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await stopAllBots();
    targets.a = undefined;
    targets.b = undefined;
    route = () => "a";
  });
  afterAll(async () => {
    proxy?.close();
    await tg?.close();
    await sandbox?.close();
    await redis?.quit();
  });

  const start = async (name: "a" | "b", lease: "on" | "off"): Promise<SpawnedBot> => {
    const bot = spawnBot({
      env: spawnedBotEnv(
        { tg, sandbox, redisUrl: testRedisUrl() },
        { BOT_MODE: "webhook", PUBLIC_URL: proxyUrl, UPDATE_LEASE: lease },
      ),
    });
    const started = await bot.waitForLog(/bot started/, { timeoutMs: 30_000 });
    targets[name] = String(started.http);
    return bot;
  };

  /** Amount typed, then "hello" typed while the quote is being made (a slow POST /quote); the next two screens. */
  async function typeWhileQuoting(user: UserDriver): Promise<{ first: Message; second: Message }> {
    await nigerianRecipient(user);
    await fetch(`${sandbox.origin}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "POST /quote", mode: "delay", delayMs: 3_000 }),
    });
    user.consumeAll();
    // The amount goes to A, the text typed meanwhile to B.
    route = (body) => (body.includes('"text":"hello"') ? "b" : "a");
    await user.send("10,000");
    await waitFor(async () => {
      const faults = (await (await fetch(`${sandbox.origin}/_sandbox/faults`)).json()) as { data: unknown[] };
      return faults.data.length === 0;
    }, "the quote request to reach the sandbox");
    await user.send("hello");
    const first = await user.nextMessage();
    const second = await user.nextMessage();
    return { first, second };
  }

  it("with the lease: the text typed during the quote is handled after it, by the flow's quote step", async () => {
    await start("a", "on");
    await start("b", "on");
    const user = tg.user({ id: 8401, first_name: "Ese" });
    const { first, second } = await typeWhileQuoting(user);
    expect(first.text).toMatch(/Your quote/);
    // The quote step's hint (press a button), not the amount step's complaint.
    expect(second.text).not.toMatch(/Your quote/);
    expect(second.text).toMatch(/Tap ✅ Confirm to get the invoice/);
  }, 90_000);

  it("without the lease (UPDATE_LEASE=off) the other process answers the text from the stale step first", async () => {
    await start("a", "off");
    await start("b", "off");
    const user = tg.user({ id: 8402, first_name: "Femi" });
    const { first, second } = await typeWhileQuoting(user);
    // B read the flow before A's quote was saved: it answered "hello" as if it were still the amount step.
    expect(first.text).not.toMatch(/Your quote/);
    expect(second.text).toMatch(/Your quote/);
  }, 90_000);

  it("a double-tapped Confirm split across the two processes gives one invoice and one status card", async () => {
    await start("a", "on");
    await start("b", "on");
    const user = tg.user({ id: 8403, first_name: "Gbenga" });
    await nigerianRecipient(user);
    const card = await quoteFor(user, "10,000");
    let presses = 0;
    route = (body) => {
      if (!body.includes('"callback_query"')) return "a";
      presses += 1;
      return presses % 2 ? "a" : "b";
    };
    const first = await user.press(card, /Confirm/);
    const second = await user.press(card, /Confirm/);
    await first.answer();
    await second.answer();
    await user.nextPhoto();
    await user.nextMessage({ match: /^ln/ });
    await user.nextMessage({ match: /Waiting for payment/ });
    await tg.idle({ quietMs: 500, timeoutMs: 15_000 });
    expect(presses).toBe(2);
    const chat = (call: { params: Record<string, unknown> }) => Number(call.params.chat_id) === user.id;
    expect(tg.callsTo("sendPhoto").filter((call) => call.ok && chat(call))).toHaveLength(1);
    expect(
      tg
        .callsTo("sendMessage")
        .filter((call) => call.ok && chat(call) && /Waiting for payment/.test(String(call.params.text))),
    ).toHaveLength(1);
    expect(await redis.zcard(`user:${user.id}:orders`)).toBe(1);
  }, 90_000);
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
