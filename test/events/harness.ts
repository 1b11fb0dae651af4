import { randomBytes } from "node:crypto";
import { autoRetry } from "@grammyjs/auto-retry";
import { Api } from "grammy";
import type { Message } from "grammy/types";
import type { Redis } from "ioredis";
import { createPayoutApi, type PayoutApi, type Quote, type QuoteRequest } from "#src/api/index.js";
import { burstPacer, type PacingOptions } from "#src/bot/telegram-limits.js";
import {
  createEventsPipeline,
  type EventsPipeline,
  type EventsPipelineDeps,
  setSendingMark,
} from "#src/events/index.js";
import type { OpsAlert, PaymentLinkEvent } from "#src/events/types.js";
import { createHttpServer, type HttpServer, PAYOUT_WEBHOOK_PATH } from "#src/http/index.js";
import { createTranslator, type Translator } from "#src/i18n/index.js";
import { silentLogger } from "#src/log/logger.js";
import { createMetrics, type Metrics, observePayoutApi } from "#src/metrics.js";
import { renderStatusCard } from "#src/orders/index.js";
import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";
import { createStore, type OrderRecord, type Store } from "#src/store/index.js";
import { freshRedis } from "../support/redis.ts";
import { startTelegramEmulator, type TelegramEmulator, type UserDriver } from "../support/telegram-driver.ts";

/**
 * Everything real: redis-server, the payout sandbox over HTTP (its webhooks POST to our HTTP server), the Telegram
 * emulator over HTTP behind a grammY Api with auto-retry and the throttler (as main.ts installs them), and the
 * events pipeline. The test plays the bot's part only where the bot would act: creating the order record and its
 * first status card when the user confirms.
 */
export type Corridor = "NG" | "KE" | "ZA" | "GH" | "BUY";

export const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";

const BENEFICIARIES = {
  NG: (fail: boolean) => ({
    bankAccountNumber: fail ? "0123456999" : "0149200000",
    bankAccountName: "RICKI TESTER",
    bankCode: "000013",
    bankName: "GTBANK PLC",
  }),
  KE: (fail: boolean) => ({
    identifierType: "paytophone",
    identifiers: {
      phoneNumber: fail ? "+254790000999" : "+254790000000",
      accountName: "Jane Wanjiku",
      network: "mpesa",
    },
  }),
  ZA: (fail: boolean) => ({
    name: "Ricki Tester",
    bankName: "CAPITEC BANK",
    bankAccountNumber: fail ? "1352900999" : "1352900000",
  }),
  GH: (fail: boolean) => ({
    identifierType: "MTN",
    identifiers: { phoneNumber: fail ? "+233999992999" : "+233999992800", accountName: "Kofi Mensah" },
  }),
} as const;

const TARGET = { NG: "NGNKOBO", KE: "KESCENT", ZA: "ZARCENT", GH: "GHSPESEWA" } as const;
const AMOUNT = { NG: 1_000_000, KE: 150_000, ZA: 100_000, GH: 50_000 } as const;

export interface PlacedOrder {
  order: OrderRecord;
  quote: Quote;
  user: UserDriver;
  /** The status card (confirmed orders) or the quote card (unconfirmed ones). */
  card: Message | undefined;
}

export interface Harness {
  redis: Redis;
  store: Store;
  sandbox: Sandbox;
  api: PayoutApi;
  tg: TelegramEmulator;
  telegram: Api;
  translator: Translator;
  metrics: Metrics;
  http: HttpServer;
  webhookUrl: string;
  alerts: OpsAlert[];
  linkEvents: PaymentLinkEvent[];
  /** Added to Date.now() for the pipeline's clock (expiry, reconciler schedule). */
  clock: { offsetMs: number };
  pipeline: EventsPipeline;
  /** Build (not start) a pipeline and route the webhook endpoint to it. */
  newPipeline(overrides?: Partial<EventsPipelineDeps>): EventsPipeline;
  /**
   * `card: false` leaves the status card to the pipeline: the confirm flow's messages never went out (the recovery
   * sweep's case; a delivery waits for them a while), or with `delivered` they did and the card was lost since.
   */
  placeOrder(spec: {
    corridor: Corridor;
    userId: number;
    fail?: boolean;
    confirmed?: boolean;
    card?: boolean;
    delivered?: boolean;
  }): Promise<PlacedOrder>;
  pay(placed: PlacedOrder): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  rateLimits?: boolean;
  /** The outbound pacer's settings (its defaults otherwise). */
  pacing?: PacingOptions;
  webhooksNowhere?: boolean;
  /** Defaults for every pipeline this harness builds. */
  pipeline?: Partial<EventsPipelineDeps>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const logger = silentLogger();
  const redis = await freshRedis();
  const store = createStore(redis);
  const metrics = createMetrics();
  const translator = await createTranslator({ logger });
  const alerts: OpsAlert[] = [];
  const linkEvents: PaymentLinkEvent[] = [];
  const clock = { offsetMs: 0 };
  let current: EventsPipeline | undefined;

  const http = createHttpServer({
    logger,
    port: 0,
    payoutWebhook: (request) => {
      if (!current) throw new Error("no pipeline");
      return current.webhookHandler(request);
    },
  });
  const { url } = await http.start();
  const webhookUrl = `${url}${PAYOUT_WEBHOOK_PATH}`;
  const webhookSecret = randomBytes(16).toString("hex");
  const sandbox = await startSandbox({
    port: 0,
    webhookUrl: options.webhooksNowhere ? "http://127.0.0.1:9/nowhere" : webhookUrl,
    webhookSecret,
  });
  const api = createPayoutApi({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.apiKey,
    logger,
    retry: { attempts: 1 },
    observe: observePayoutApi(metrics),
  });
  const tg = await startTelegramEmulator({ rateLimits: options.rateLimits ?? false });
  const telegram = new Api(tg.token, { apiRoot: tg.apiRoot });
  // Innermost first, as main.ts installs them: the notification's sending mark, then the pacer, then auto-retry.
  telegram.config.use(setSendingMark);
  telegram.config.use(burstPacer(options.pacing));
  telegram.config.use(autoRetry());
  // The bot's own sends while setting up an order (first cards): not part of what the pipeline delivers.
  const setupApi = new Api(tg.token, { apiRoot: tg.apiRoot });
  const prefix = `bull-${randomBytes(3).toString("hex")}`;
  const pipelines: EventsPipeline[] = [];

  const harness: Harness = {
    redis,
    store,
    sandbox,
    api,
    tg,
    telegram,
    translator,
    metrics,
    http,
    webhookUrl,
    alerts,
    linkEvents,
    clock,
    get pipeline() {
      if (!current) throw new Error("no pipeline");
      return current;
    },
    newPipeline(overrides = {}) {
      const pipeline = createEventsPipeline({
        redis,
        logger,
        store,
        api,
        telegram,
        translator,
        languageOf: async () => "en",
        metrics,
        webhookSecret,
        allowUnsigned: false,
        onAlert: (alert) => {
          alerts.push(alert);
        },
        onPaymentLinkEvent: (event) => {
          linkEvents.push(event);
        },
        reconcileEveryMs: 200,
        reconciler: { baseBackoffMs: 300, maxBackoffMs: 1_500, expiryGraceMs: 1_000, batchSize: 100 },
        followUpMs: 300,
        retries: { ingest: { attempts: 3, backoffMs: 100 }, deliveries: { attempts: 3, backoffMs: 100 } },
        queuePrefix: prefix,
        now: () => Date.now() + clock.offsetMs,
        stopGraceMs: 5_000,
        ...options.pipeline,
        ...overrides,
      });
      pipelines.push(pipeline);
      current = pipeline;
      return pipeline;
    },

    async placeOrder({
      corridor,
      userId,
      fail = false,
      confirmed = true,
      card: withCard = true,
      delivered = false,
    }) {
      const user = tg.user({ id: userId, first_name: `User ${userId}`, started: true });
      await store.users.touch({ id: userId, firstName: `User ${userId}`, telegramLanguage: "en" });
      const request: QuoteRequest =
        corridor === "BUY"
          ? {
              amount: 10_000,
              sourceCurrency: "NGNKOBO",
              targetCurrency: "BTCSAT",
              paymentMethod: "BANKTRANSFER",
              paymentCurrency: "BTCSAT",
              autopayout: true,
              speed: "fast",
              beneficiary: { onChainAddress: TESTNET_ADDRESS },
            }
          : {
              amount: AMOUNT[corridor],
              sourceCurrency: "BTCSAT",
              targetCurrency: TARGET[corridor],
              paymentMethod: "LIGHTNING",
              paymentCurrency: TARGET[corridor],
              autopayout: true,
              beneficiary: BENEFICIARIES[corridor](fail) as QuoteRequest["beneficiary"],
            };
      const quote = await api.createQuote(request);
      const order = await store.orders.create({
        orderId: quote.orderId!,
        quoteId: quote.id,
        hash: quote.hash!,
        kind: corridor === "BUY" ? "buy" : "payout",
        corridor: corridor === "BUY" ? "NG" : corridor,
        chatId: userId,
        userId,
        pay: {
          amount: quote.totalAmountInSourceCurrency ?? quote.amountInSourceCurrency,
          currency: quote.sourceCurrency,
        },
        receive: { amount: quote.amountInTargetCurrency, currency: quote.targetCurrency },
        fee: { amount: quote.transactionFeesInSourceCurrency ?? 0, currency: quote.sourceCurrency },
        recipientLabel: corridor === "BUY" ? "tb1qw5…jzsx" : `Recipient <${corridor}> ••0000`,
        verificationCode: "🦊🍋",
        expiresAt: quote.expiry,
      });
      const confirmedAt = new Date().toISOString();
      if (!withCard) {
        const annotated = await store.orders.annotate(order.orderId, {
          confirmedAt,
          ...(delivered ? { deliveredAt: confirmedAt } : {}),
        });
        return { order: annotated!, quote, user, card: undefined };
      }
      const t = translator.t("en");
      const card = confirmed ? renderStatusCard(order, t, "en-NG") : quoteCardPlaceholder(order);
      const message = await setupApi.sendMessage(userId, card.text, { parse_mode: "HTML" });
      const annotated = await store.orders.annotate(
        order.orderId,
        confirmed
          ? { statusMessageId: message.message_id, confirmedAt }
          : { quoteMessageId: message.message_id },
      );
      user.consumeAll();
      return { order: annotated!, quote, user, card: message };
    },

    async pay({ quote, order }) {
      if (order.kind === "buy") {
        await api.simulatePayIn({
          quoteId: quote.id,
          currency: "NGN",
          amount: quote.totalAmountInSourceCurrency ?? quote.amountInSourceCurrency,
        });
      } else {
        await api.simulatePayIn({ quoteId: quote.id, currency: "BTC" });
      }
    },

    async close() {
      for (const pipeline of pipelines) await pipeline.stop();
      await http.stop(1_000);
      await sandbox.close();
      await api.close();
      await tg.close();
      await redis.quit();
    },
  };
  return harness;
}

/** A stand-in for the bot's quote card ("confirm or cancel"); its text does not matter to the pipeline. */
function quoteCardPlaceholder(order: OrderRecord) {
  return { text: `Quote ${order.orderId}: confirm to get the invoice.` };
}

/** Poll until `condition` holds (no timing assertion: the timeout only bounds a hung test). */
export async function eventually<T>(
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  description: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${description}${last ? `: ${String(last)}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Wait until every queue is drained (nothing waiting, delayed or active) and no order has undelivered entries. */
export async function settled(harness: Harness, orderIds: string[], timeoutMs = 30_000): Promise<void> {
  await eventually(
    async () => {
      const stats = await harness.pipeline.stats();
      const busy = Object.entries(stats).some(
        ([queue, counts]) =>
          !queue.includes("reconcile") &&
          (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0) > 0,
      );
      if (busy) return false;
      for (const orderId of orderIds) {
        const [cursor, length] = await Promise.all([
          harness.redis.get(`events:outbox:${orderId}:cursor`),
          harness.redis.llen(`events:outbox:${orderId}`),
        ]);
        // "<cursor>" or "<cursor>:<seq being sent>".
        if (Number.parseInt(cursor ?? "0", 10) < length) return false;
      }
      return true;
    },
    "the pipeline to settle",
    timeoutMs,
  );
}

/** Texts of the bot's messages in a chat, oldest first, as the user sees them now (edits applied). */
export function chatTexts(user: UserDriver): string[] {
  return user.messages().map((message) => message.text ?? message.caption ?? "");
}
