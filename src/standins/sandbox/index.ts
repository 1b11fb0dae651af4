import { type Logger, silentLogger } from "#src/log/logger.js";
import { SandboxClock, Scheduler } from "./clock.ts";
import type { Core } from "./core.ts";
import { createInitialState, DEFAULT_API_KEY, DEFAULT_WEBHOOK_SECRET } from "./domain/account.ts";
import { BankDirectory } from "./domain/banks.ts";
import { Chain } from "./domain/chain.ts";
import type { SandboxState, WalletCurrency } from "./domain/state.ts";
import { Faults } from "./faults.ts";
import { Router } from "./http/router.ts";
import { API_PREFIX, createHttpServer } from "./http/server.ts";
import { DEFAULT_PRICES, mergePrices, type PriceModel, type PriceModelInput, Pricing } from "./pricing.ts";
import { registerAccountRoutes } from "./routes/account.ts";
import { registerControlRoutes } from "./routes/control.ts";
import { registerLookupRoutes } from "./routes/lookups.ts";
import { registerMoneyRoutes } from "./routes/money.ts";
import { registerQuoteRoutes } from "./routes/quotes.ts";
import {
  DEFAULT_BACKOFF_MS,
  type DeliveryRecord,
  signBody,
  WebhookDispatcher,
} from "./webhooks/dispatcher.ts";

export { DEFAULT_API_KEY, DEFAULT_WEBHOOK_SECRET } from "./domain/account.ts";
export { STAGING_ACCOUNT } from "./domain/nameenquiry.ts";
export { DEFAULT_PRICES, type PriceModel, type PriceModelInput } from "./pricing.ts";
export { type DeliveryRecord, signBody };

const DEFAULT_NAME_ENQUIRY_PER_MINUTE = 30;

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: "127.0.0.1";
  apiKey?: string;
  /** Registers the account webhook at start (no ping is sent for this). */
  webhookUrl?: string;
  webhookSecret?: string;
  prices?: PriceModelInput;
  logger?: Logger;
  /** Base clock in ms; the sandbox clock is this plus whatever /_sandbox/clock/advance added. */
  now?: () => number;
  /** Opening wallet balances in minor units. */
  balances?: Partial<Record<WalletCurrency, number>>;
  /** Per-attempt webhook timeout in real ms (default 5000). */
  webhookTimeoutMs?: number;
  /** Sandbox-clock delays before each webhook retry (default 1 s, 5 s, 30 s, 2 min, 10 min, 1 h). */
  webhookBackoffMs?: readonly number[];
  /** Name-enquiry rate limit per key per minute (default 30). */
  nameEnquiryPerMinute?: number;
}

export interface Sandbox {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** origin + "/api/v1" */
  baseUrl: string;
  apiKey: string;
  /** The account's current webhook secret. */
  readonly webhookSecret: string;
  /** Live state, for tests that need to look inside. Replaced by /_sandbox/reset. */
  readonly state: SandboxState;
  readonly prices: PriceModel;
  /** Sandbox-clock now (ms). */
  now(): number;
  /** Same as POST /_sandbox/clock/advance. Returns how many timed tasks ran. */
  advanceClock(ms: number): number;
  /** Same as POST /_sandbox/blocks/mine. Returns the ids of transactions it confirmed. */
  mineBlocks(count: number): string[];
  /** Same as POST /_sandbox/prices with `btcUsd`: new quotes and /price use it. Returns the new model. */
  setBtcUsd(btcUsd: number): PriceModel;
  webhookLog(): readonly DeliveryRecord[];
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { core, reset } = createCore(options);
  const { scheduler, clock, logger } = core;
  const router = new Router();
  registerAccountRoutes(router, core);
  registerLookupRoutes(router, core);
  registerQuoteRoutes(router, core);
  registerMoneyRoutes(router, core);
  registerControlRoutes(router, core, reset);

  const http = createHttpServer({
    router,
    faults: core.faults,
    logger,
    apiKey: () => core.state.account.apiKey,
    beforeRequest: () => scheduler.runDue(),
    now: () => clock.now(),
  });
  const port = await http.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  const origin = `http://127.0.0.1:${port}`;
  core.origin = origin;
  logger.info({ baseUrl: `${origin}${API_PREFIX}` }, "payout sandbox listening");
  return sandboxHandle(core, options.apiKey ?? DEFAULT_API_KEY, () => http.close());
}

/** The sandbox's state and machinery, and how /_sandbox/reset puts it back to the start. */
function createCore(options: SandboxOptions): { core: Core; reset: () => void } {
  const logger = options.logger ?? silentLogger();
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  const webhookSecret = options.webhookSecret ?? DEFAULT_WEBHOOK_SECRET;
  const initialPrices = mergePrices(DEFAULT_PRICES, options.prices);
  const clock = new SandboxClock(options.now ?? Date.now);
  const scheduler = new Scheduler(clock, logger);
  const faults = new Faults();
  const seed = () => ({
    apiKey,
    webhookUrl: options.webhookUrl,
    webhookSecret,
    balances: options.balances,
    now: clock.now(),
  });

  const core: Core = {
    state: createInitialState(seed()),
    clock,
    scheduler,
    pricing: new Pricing(initialPrices),
    banks: BankDirectory.load(),
    chain: new Chain(clock, scheduler),
    webhooks: undefined as unknown as WebhookDispatcher,
    faults,
    logger,
    origin: "",
    limits: { nameEnquiryPerMinute: options.nameEnquiryPerMinute ?? DEFAULT_NAME_ENQUIRY_PER_MINUTE },
  };
  core.webhooks = new WebhookDispatcher({
    clock,
    scheduler,
    logger,
    target: () => core.state.account.webhook,
    duplicate: () => faults.takeDuplicateWebhook(),
    timeoutMs: options.webhookTimeoutMs ?? 5_000,
    backoffMs: options.webhookBackoffMs ?? DEFAULT_BACKOFF_MS,
  });

  const reset = () => {
    scheduler.clear();
    core.chain.reset();
    core.webhooks.reset();
    faults.clear();
    clock.reset();
    core.pricing = new Pricing(initialPrices);
    core.limits.nameEnquiryPerMinute = options.nameEnquiryPerMinute ?? DEFAULT_NAME_ENQUIRY_PER_MINUTE;
    core.state = createInitialState(seed());
  };
  return { core, reset };
}

/** What a test or the launcher holds of a started sandbox. */
function sandboxHandle(core: Core, apiKey: string, closeHttp: () => Promise<void>): Sandbox {
  const { clock, scheduler, origin } = core;
  let closed = false;
  return {
    origin,
    baseUrl: `${origin}${API_PREFIX}`,
    apiKey,
    get webhookSecret() {
      return core.state.account.webhook.secret;
    },
    get state() {
      return core.state;
    },
    get prices() {
      return core.pricing.model;
    },
    now: () => clock.now(),
    advanceClock: (ms) => scheduler.advanceTo(clock.now() + ms),
    mineBlocks: (count) => core.chain.mine(count),
    setBtcUsd: (btcUsd) => {
      core.pricing = new Pricing(mergePrices(core.pricing.model, { btcUsd }));
      return core.pricing.model;
    },
    webhookLog: () => core.webhooks.log(),
    close: async () => {
      if (closed) return;
      closed = true;
      scheduler.close();
      core.webhooks.close();
      await closeHttp();
    },
  };
}
