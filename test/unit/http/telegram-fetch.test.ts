import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { Api, HttpError, InputFile } from "grammy";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTelegramFetch } from "#src/http/telegram-fetch.js";
import { refusal, startBotApiStandIn } from "../../support/bot-api-stand-in.ts";

describe("the bot's Telegram HTTP client (grammY's client.fetch)", () => {
  let telegram: Awaited<ReturnType<typeof startBotApiStandIn>>;
  let apiRoot: string;

  beforeAll(async () => {
    telegram = await startBotApiStandIn();
    apiRoot = telegram.apiRoot;
  });
  afterAll(() => telegram.close());
  beforeEach(() => telegram.reset());

  const api = (timeoutSeconds?: number) =>
    new Api("1:token", {
      apiRoot,
      fetch: createTelegramFetch() as unknown as typeof fetch,
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    });

  it("posts grammY's JSON payload to the method's path and hands back the answer", async () => {
    const sent = await api().sendMessage(42, "héllo <b>x</b>", { parse_mode: "HTML" });

    expect(sent.message_id).toBe(7);
    expect(telegram.arrivals).toHaveLength(1);
    expect(telegram.arrivals[0]).toMatchObject({
      method: "POST",
      path: "/bot1:token/sendMessage",
      contentType: "application/json",
    });
    expect(JSON.parse(telegram.arrivals[0]!.body.toString("utf8"))).toEqual({
      chat_id: 42,
      text: "héllo <b>x</b>",
      parse_mode: "HTML",
    });
  });

  it("reads an answer that arrives in several pieces, multi-byte characters split between them", async () => {
    const text = `${"₦".repeat(5_000)} done`;
    const json = Buffer.from(JSON.stringify({ ok: true, result: { message_id: 8, text } }));
    telegram.answerWith((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": json.length });
      // "₦" is three bytes: cut inside one, across separate writes.
      res.write(json.subarray(0, 1_001));
      setTimeout(() => res.end(json.subarray(1_001)), 20);
    });

    const response = await createTelegramFetch()(`${apiRoot}/bot1:token/getMe`);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, result: { message_id: 8, text } });
  });

  it("gives Telegram's refusal to grammY with its status, which grammY turns into a GrammyError", async () => {
    telegram.answerWith(refusal(400, "Bad Request: message is not modified"));
    const response = await createTelegramFetch()(`${apiRoot}/bot1:token/editMessageText`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(response).toMatchObject({ ok: false, status: 400 });
    expect(await response.text()).toContain("message is not modified");

    await expect(api().editMessageText(1, 2, "x")).rejects.toMatchObject({
      error_code: 400,
      description: "Bad Request: message is not modified",
    });
  });

  it("streams a file upload (grammY's multipart body) whole", async () => {
    const bytes = Buffer.alloc(200_000, 0xab);
    await api().sendPhoto(
      42,
      new InputFile(Readable.from([bytes.subarray(0, 70_000), bytes.subarray(70_000)])),
    );

    expect(telegram.arrivals).toHaveLength(1);
    expect(telegram.arrivals[0]!.path).toBe("/bot1:token/sendPhoto");
    expect(telegram.arrivals[0]!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(telegram.arrivals[0]!.body.includes(bytes)).toBe(true);
  });

  it("abandons a call when grammY's timeout fires: the call fails and the connection is closed", async () => {
    telegram.answerWith(() => undefined); // never answers

    await expect(api(0.3).sendMessage(42, "slow")).rejects.toBeInstanceOf(HttpError);
    await expect.poll(() => telegram.abandoned()).toBe(1);
  });

  it("never sends a call whose signal was aborted before it could start", async () => {
    const fetchCall = createTelegramFetch();
    const aborted = new AbortController();
    aborted.abort();
    await expect(fetchCall(`${apiRoot}/bot1:token/sendMessage`, { signal: aborted.signal })).rejects.toThrow(
      /aborted/i,
    );

    // Aborted in the same turn as the call: the request has not reached a connection yet.
    const late = new AbortController();
    const pending = fetchCall(`${apiRoot}/bot1:token/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"chat_id":1,"text":"x"}',
      signal: late.signal,
    });
    late.abort();
    await expect(pending).rejects.toThrow(/aborted/i);

    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(telegram.arrivals).toHaveLength(0);
  });

  it("rejects when nothing listens, which grammY reports as an HttpError", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");

    const unreachable = new Api("1:token", {
      apiRoot: `http://127.0.0.1:${port}`,
      fetch: createTelegramFetch() as unknown as typeof fetch,
    });
    await expect(unreachable.getMe()).rejects.toBeInstanceOf(HttpError);
  });
});
