import type { z } from "zod";
import { type Logger, silentLogger } from "#src/log/logger.js";
import { PayoutApiError } from "./errors.ts";
import {
  type CallSpec,
  DEFAULT_TIMEOUTS,
  type HttpTimeouts,
  HttpTransport,
  type TransportOptions,
} from "./http.ts";
import { DEFAULT_RETRY, type RetryPolicy } from "./retry.ts";
import {
  type Bank,
  bankListSchema,
  type NameEnquiry,
  nameEnquirySchema,
  type Price,
  priceSchema,
  zaBankListSchema,
} from "./schemas/lookup.ts";
import { type Order, type OrderListItem, orderListSchema, orderSchema } from "./schemas/order.ts";
import {
  type CreatedPaymentLink,
  createdPaymentLinkSchema,
  type PaymentLink,
  type PaymentLinkDetails,
  type PaymentLinkRequest,
  paymentLinkDetailsResponseSchema,
  paymentLinkRequestSchema,
  paymentLinkSchema,
} from "./schemas/payment-link.ts";
import { type Quote, type QuoteRequest, quoteRequestSchema, quoteSchema } from "./schemas/quote.ts";
import {
  type NameEnquiryRequest,
  nameEnquiryRequestSchema,
  type SimulatePayInRequest,
  type SimulationResult,
  simulatePayInRequestSchema,
  simulationResultSchema,
  type TransactionQuery,
  transactionQuerySchema,
  type WalletQuery,
  type WithdrawBtcRequest,
  type WithdrawNgnRequest,
  walletQuerySchema,
  withdrawBtcRequestSchema,
  withdrawNgnRequestSchema,
} from "./schemas/requests.ts";
import {
  type Transaction,
  type TransactionDetail,
  transactionDetailListSchema,
  transactionSchema,
} from "./schemas/transaction.ts";
import { type UserProfile, userProfileSchema } from "./schemas/user.ts";
import { type BankAccount, bankAccountListSchema, type Wallet, walletListSchema } from "./schemas/wallet.ts";
import {
  type WebhookRegistration,
  type WebhookRequest,
  type WebhookTestResult,
  webhookRegistrationSchema,
  webhookRequestSchema,
  webhookTestResultSchema,
} from "./schemas/webhook.ts";
import type { ServerClock } from "./server-clock.ts";

interface PayoutApiOptions {
  /** e.g. http://127.0.0.1:4010/api/v1 (a trailing slash is tolerated). */
  baseUrl: string;
  apiKey: string;
  logger?: Logger;
  timeouts?: Partial<HttpTimeouts>;
  retry?: Partial<RetryPolicy>;
  /** Keep-alive connections to the API (default 8). */
  connections?: number;
  /** Idle time before a pooled connection is closed (default 10 s; the server's keep-alive hint wins). */
  keepAliveMs?: number;
  /** Tracks the API's clock from its responses (see ServerClock). */
  clock?: ServerClock;
  /** Told about every HTTP request (endpoint, outcome, duration): the metrics hook, keeping prom-client out. */
  observe?: TransportOptions["observe"];
}

/**
 * Typed client of the payout API (spec section 4 plus the real service's webhook routes).
 * GETs (and the idempotent PUT /webhook) retry with jittered backoff; POSTs are repeated only when the connection
 * was never established. In particular POST /withdraw, /withdraw/btc and /quote are never repeated once they may
 * have been sent — a double quote or withdrawal is a bug; on `outcomeUnknown` errors reconcile by reading.
 * Every request body is validated before sending (kind "validation", status undefined).
 */
export class PayoutApi {
  constructor(private readonly http: HttpTransport) {}

  /** GET /order/all */
  listOrders(): Promise<OrderListItem[]> {
    return this.get("/order/all", orderListSchema);
  }

  /** GET /order?id= */
  getOrder(orderId: string): Promise<Order> {
    return this.get("/order", orderSchema, { id: orderId });
  }

  /**
   * GET /transaction by id, orderId or hash; always a list (the API answers an object or an array). A 404 means
   * "nothing matches yet" and reads as [] — handy while polling a fresh order.
   */
  async getTransactions(query: TransactionQuery): Promise<TransactionDetail[]> {
    const valid = this.validate("GET /transaction", transactionQuerySchema, query);
    try {
      return await this.get("/transaction", transactionDetailListSchema, valid);
    } catch (error) {
      if (error instanceof PayoutApiError && error.kind === "not_found") return [];
      throw error;
    }
  }

  /** GET /wallet */
  async getWallets(query: WalletQuery = {}): Promise<Wallet[]> {
    const valid = this.validate("GET /wallet", walletQuerySchema, query);
    return this.get("/wallet", walletListSchema, valid);
  }

  /** GET /bankaccount */
  async getBankAccounts(query: WalletQuery = {}): Promise<BankAccount[]> {
    const valid = this.validate("GET /bankaccount", walletQuerySchema, query);
    return this.get("/bankaccount", bankAccountListSchema, valid);
  }

  /** GET /user. The profile holds the API key and webhook secret: never log it whole. */
  getUser(): Promise<UserProfile> {
    return this.get("/user", userProfileSchema);
  }

  /** POST /quote. `autopayout` is always sent. Never retried once it may have reached the API. */
  async createQuote(request: QuoteRequest): Promise<Quote> {
    const body = this.validate("POST /quote", quoteRequestSchema, request);
    return this.post("/quote", body, quoteSchema);
  }

  /** POST /withdraw: NGN from the wallet to a bank account. Never retried once it may have reached the API. */
  async withdrawNgn(request: WithdrawNgnRequest): Promise<Transaction> {
    const valid = this.validate("POST /withdraw", withdrawNgnRequestSchema, request);
    const body = { amount: String(valid.amount), currency: "NGN", beneficiary: valid.beneficiary };
    return this.post("/withdraw", body, transactionSchema);
  }

  /** POST /withdraw/btc: pay a Lightning invoice from the BTC wallet. Never retried once it may have been sent. */
  async withdrawBtc(request: WithdrawBtcRequest): Promise<Transaction> {
    const valid = this.validate("POST /withdraw/btc", withdrawBtcRequestSchema, request);
    return this.post("/withdraw/btc", { invoice: valid.invoice, memo: valid.memo ?? "" }, transactionSchema);
  }

  /** GET /bank/bankcode?country=NG → NIP bank list. */
  listBanks(country: "NG" = "NG"): Promise<Bank[]> {
    return this.get("/bank/bankcode", bankListSchema, { country });
  }

  /** GET /bank/bankcode?country=ZA → bank names (the ZAR beneficiary's bankName must be one of them). */
  listZaBanks(): Promise<string[]> {
    return this.get("/bank/bankcode", zaBankListSchema, { country: "ZA" });
  }

  /** GET /bank/name-enquiry (NGN only). The account number must be exactly 10 digits: checked before the call. */
  async nameEnquiry(request: NameEnquiryRequest): Promise<NameEnquiry> {
    const valid = this.validate("GET /bank/name-enquiry", nameEnquiryRequestSchema, request);
    return this.get("/bank/name-enquiry", nameEnquirySchema, valid);
  }

  /** GET /price?currency=NGN|KES|ZAR|GHS */
  getPrice(currency: string): Promise<Price> {
    return this.get("/price", priceSchema, { currency });
  }

  /** POST /paymentlink (defaults: one-time, NGN bank transfer, settled on-chain in BTC). */
  async createPaymentLink(request: PaymentLinkRequest): Promise<CreatedPaymentLink> {
    const body = this.validate("POST /paymentlink", paymentLinkRequestSchema, request);
    return this.post("/paymentlink", body, createdPaymentLinkSchema);
  }

  /** GET /paymentlink/details?id= → the `paymentLinkDetails` object. */
  getPaymentLinkDetails(
    id: string,
    paymentMethod?: "LIGHTNING" | "BANKTRANSFER",
  ): Promise<PaymentLinkDetails> {
    return this.get("/paymentlink/details", paymentLinkDetailsResponseSchema, { id, paymentMethod });
  }

  /** GET /paymentlink/orders?id= → the link with its orders. */
  getPaymentLinkOrders(id: string): Promise<PaymentLink> {
    return this.get("/paymentlink/orders", paymentLinkSchema, { id });
  }

  /** POST /simulation/pay-in (staging and sandbox only). */
  async simulatePayIn(request: SimulatePayInRequest): Promise<SimulationResult> {
    const body = this.validate("POST /simulation/pay-in", simulatePayInRequestSchema, request);
    return this.post("/simulation/pay-in", body, simulationResultSchema);
  }

  /** POST /webhook/register (real service route; the API then sends a ping event). */
  async registerWebhook(request: WebhookRequest): Promise<WebhookRegistration> {
    const body = this.validate("POST /webhook/register", webhookRequestSchema, request);
    return this.post("/webhook/register", body, webhookRegistrationSchema);
  }

  /** PUT /webhook: same body; idempotent, so retried like a GET. */
  async updateWebhook(request: WebhookRequest): Promise<WebhookRegistration> {
    const body = this.validate("PUT /webhook", webhookRequestSchema, request);
    return this.http.call({
      method: "PUT",
      path: "/webhook",
      body,
      schema: webhookRegistrationSchema,
      replay: "idempotent",
    });
  }

  /** POST /webhook/test: asks the API to send a ping event. */
  testWebhook(): Promise<WebhookTestResult> {
    return this.post("/webhook/test", {}, webhookTestResultSchema);
  }

  /**
   * Cheap reachability check for /readyz: one GET /price?currency=NGN, no retries. Resolves when the API answered
   * with a readable price; rejects with the PayoutApiError otherwise.
   */
  async ping(): Promise<void> {
    await this.http.call({
      method: "GET",
      path: "/price",
      query: { currency: "NGN" },
      schema: priceSchema,
      replay: "idempotent",
      attempts: 1,
    });
  }

  /** Close the keep-alive pool (waits for requests in flight; pending retries are abandoned). */
  close(): Promise<void> {
    return this.http.close();
  }

  private get<T>(path: string, schema: z.ZodType<T>, query?: CallSpec<T>["query"]): Promise<T> {
    return this.http.call({ method: "GET", path, query, schema, replay: "idempotent" });
  }

  private post<T>(path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    return this.http.call({ method: "POST", path, body, schema, replay: "before-send-only" });
  }

  /** Refuse to send a request the API would reject anyway; the message names fields, never their values. */
  private validate<S extends z.ZodType>(endpoint: string, schema: S, value: unknown): z.output<S> {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const detail = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join(".") || "request"}: ${issue.message}`)
      .join("; ");
    throw new PayoutApiError({ kind: "validation", endpoint, detail: `invalid request (${detail})` });
  }
}

export function createPayoutApi(options: PayoutApiOptions): PayoutApi {
  const transport = new HttpTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    logger: options.logger ?? silentLogger(),
    timeouts: { ...DEFAULT_TIMEOUTS, ...options.timeouts },
    retry: { ...DEFAULT_RETRY, ...options.retry },
    connections: options.connections ?? 8,
    keepAliveMs: options.keepAliveMs ?? 10_000,
    ...(options.clock ? { clock: options.clock } : {}),
    observe: options.observe,
  });
  return new PayoutApi(transport);
}
