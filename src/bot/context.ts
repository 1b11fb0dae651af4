import type { Conversation, ConversationFlavor } from "@grammyjs/conversations";
import type { Context, SessionFlavor } from "grammy";
import type { PayoutApi } from "#src/api/index.js";
import type { Config } from "#src/config.js";
import type { DeadLetter } from "#src/events/index.js";
import type { OutboundNetwork } from "#src/http/guarded-fetch.js";
import type { AccountLanguage } from "#src/i18n/account-language.js";
import type { LanguageCode, TFunction, Translator } from "#src/i18n/index.js";
import type { Logger } from "#src/log/logger.js";
import type { ApprovalRecord, ProcessRegistry, Store } from "#src/store/index.js";

/** Everything the bot needs from the outside, passed to createBot (no globals, no side effects at import). */
export interface BotDeps {
  config: Config;
  logger: Logger;
  api: PayoutApi;
  store: Store;
  translator: Translator;
  accountLanguage: Pick<AccountLanguage, "value">;
  /**
   * The payout API's clock (ms): what quote deadlines (`expiry`) are compared with. The embedded sandbox's clock in
   * local mode and tests, else the API's `Date` headers tracked by ServerClock.
   */
  now: () => number;
  /** Optional hooks the process wiring provides (metrics, ops alerts). */
  hooks?: BotHooks;
  /** The events pipeline's ops surface (queues, dead letters, re-check) for /health and alert buttons. */
  ops?: OpsPorts;
  /**
   * This process's heartbeat (createApp starts it): pending money-action claims (runOnce) name it, so a quote a
   * dead process left in flight can be taken over and resolved. Without it such a claim waits out its TTL.
   */
  processes?: ProcessRegistry;
  /**
   * How fetches to hosts users name (Lightning addresses) resolve and connect: unset in production (system DNS,
   * public addresses only); tests point them at a local server. Code-injected only, never from config.
   */
  outbound?: OutboundNetwork;
}

/** What ops commands need from the process wiring (the events pipeline). Absent parts are shown as such. */
export interface OpsPorts {
  deadLetters?: { list(limit?: number): Promise<DeadLetter[]>; replay(id: string): Promise<boolean> };
  stats?(): Promise<Record<string, Record<string, number>>>;
  recheckOrder?(orderId: string): Promise<unknown>;
  /** A treasury approval request changed: every feature's `approvalChanged` sink follows (a refund's card). */
  approvalChanged?(record: ApprovalRecord): Promise<void>;
}

interface BotHooks {
  onUpdateHandled?(updateType: string, seconds: number): void;
}

/** Small UI state kept per chat between updates (flows keep theirs in conversation storage). */
export interface SessionData {
  historyOffset?: number;
}

export interface I18nFlavor {
  /** t() bound to the user's language. */
  t: TFunction;
  language: LanguageCode;
  /** Intl locale for numbers, money and dates. */
  locale: string;
}

export interface DepsFlavor {
  deps: BotDeps;
}

/** What a feature does when a flow it owns is left for another (createBot installs them from the features). */
export interface FlowExit {
  flow: string;
  run(ctx: BotContext): Promise<void>;
}

export interface FlowExitsFlavor {
  flowExits?: readonly FlowExit[];
}

/** The context inside conversations: only what the conversation plugins re-install on each replayed context. */
export type FlowContext = Context & I18nFlavor & DepsFlavor;

export type BotContext = ConversationFlavor<
  Context & SessionFlavor<SessionData> & I18nFlavor & DepsFlavor & FlowExitsFlavor
>;

export type FlowConversation = Conversation<BotContext, FlowContext>;
