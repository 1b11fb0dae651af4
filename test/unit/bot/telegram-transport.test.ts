import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Api, GrammyError, HttpError, InputFile } from "grammy";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jsonTransport } from "#src/bot/telegram-transport.js";
import { createTelegramFetch } from "#src/http/telegram-fetch.js";
import { refusal, startBotApiStandIn } from "../../support/bot-api-stand-in.ts";

describe("the JSON transport under the bot's transformers", () => {
  let telegram: Awaited<ReturnType<typeof startBotApiStandIn>>;
  let apiRoot: string;
  /** How each fetch call was made: grammY's own path always passes an abort signal, the transport never does. */
  const fetches: { url: string; signal: boolean }[] = [];

  beforeAll(async () => {
    telegram = await startBotApiStandIn();
    apiRoot = telegram.apiRoot;
  });
  afterAll(() => telegram.close());
  beforeEach(() => {
    telegram.reset();
    fetches.length = 0;
  });
  /** What arrived, the body as text. */
  const arrivals = () =>
    telegram.arrivals.map(({ path, contentType, body }) => ({
      path,
      contentType,
      body: body.toString("utf8"),
    }));

  const counted = (root = apiRoot) => {
    const base = createTelegramFetch();
    return {
      apiRoot: root,
      fetch: ((url: string, init?: { signal?: AbortSignal }) => {
        fetches.push({ url, signal: init?.signal !== undefined });
        return base(url, init as never);
      }) as unknown as typeof fetch,
    };
  };
  const withTransport = (root?: string) => {
    const api = new Api("1:token", counted(root));
    api.config.use(jsonTransport(api));
    return api;
  };
  const keyboard = { inline_keyboard: [[{ text: "Refresh", callback_data: "ord:refresh:1" }]] };

  it("posts a JSON call itself, with the body and path grammY's own client sends", async () => {
    const plain = new Api("1:token", counted());
    await plain.editMessageText(42, 7, "héllo <b>x</b>", { parse_mode: "HTML", reply_markup: keyboard });
    const sent = await withTransport().editMessageText(42, 7, "héllo <b>x</b>", {
      parse_mode: "HTML",
      reply_markup: keyboard,
    });

    expect(sent).toMatchObject({ message_id: 7 });
    expect(fetches.map((call) => call.signal)).toEqual([true, false]);
    expect(arrivals()).toHaveLength(2);
    expect(arrivals()[1]).toEqual(arrivals()[0]);
    expect(arrivals()[1]).toMatchObject({
      path: "/bot1:token/editMessageText",
      contentType: "application/json",
    });
  });

  it("hands Telegram's refusal to the transformers above, which grammY turns into a GrammyError", async () => {
    telegram.answerWith(refusal(400, "Bad Request: message is not modified"));
    const api = withTransport();
    const seen: unknown[] = [];
    api.config.use(async (prev, method, payload, signal) => {
      const result = await prev(method, payload, signal);
      seen.push(result);
      return result;
    });

    const failure = await api.editMessageText(1, 2, "x").catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(GrammyError);
    expect(failure).toMatchObject({ error_code: 400, description: "Bad Request: message is not modified" });
    expect(seen).toEqual([
      { ok: false, error_code: 400, description: "Bad Request: message is not modified" },
    ]);
    expect(fetches.map((call) => call.signal)).toEqual([false]);
  });

  it("leaves file uploads, payloads with a null and calls with a signal to grammY's path", async () => {
    const api = withTransport();
    await api.sendPhoto(42, new InputFile(Buffer.from("png bytes"), "qr.png"));
    await api.sendMessage(42, "no keyboard", { reply_markup: null as never });
    await api.sendMessage(42, "abortable", {}, new AbortController().signal as never);

    expect(fetches.map((call) => call.signal)).toEqual([true, true, true]);
    expect(arrivals()[0]!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    // grammY leaves the null out, as it always did.
    expect(JSON.parse(arrivals()[1]!.body)).toEqual({ chat_id: 42, text: "no keyboard" });
  });

  it("fails a call that cannot reach Telegram with grammY's HttpError and message", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const root = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    closed.close();
    await once(closed, "close");

    const viaTransport = await withTransport(root)
      .sendMessage(1, "x")
      .catch((error: unknown) => error);
    const viaGrammy = await new Api("1:token", counted(root))
      .sendMessage(1, "x")
      .catch((error: unknown) => error);

    expect(viaTransport).toBeInstanceOf(HttpError);
    expect((viaTransport as HttpError).message).toBe((viaGrammy as HttpError).message);
    expect(fetches.map((call) => call.signal)).toEqual([false, true]);
  });

  it("fails a payload JSON cannot write as grammY does: the caller's TypeError, nothing sent", async () => {
    const unwritable = { message_thread_id: 1n as unknown as number };
    const viaTransport = await withTransport()
      .sendMessage(42, "x", unwritable)
      .catch((error: unknown) => error);
    const viaGrammy = await new Api("1:token", counted())
      .sendMessage(42, "x", unwritable)
      .catch((error: unknown) => error);

    expect(viaTransport).toBeInstanceOf(TypeError);
    expect(viaGrammy).toBeInstanceOf(TypeError);
    expect(telegram.arrivals).toHaveLength(0);
  });

  it("stands aside on an Api without a custom fetch", async () => {
    const api = new Api("1:token", { apiRoot });
    api.config.use(jsonTransport(api));

    await expect(api.sendMessage(42, "via node-fetch")).resolves.toMatchObject({ message_id: 7 });
    expect(fetches).toHaveLength(0);
    expect(arrivals()).toHaveLength(1);
  });
});
