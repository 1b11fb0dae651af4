import type { Logger } from "#src/log/logger.js";
import type { SandboxClock, Scheduler } from "./clock.ts";
import type { BankDirectory } from "./domain/banks.ts";
import type { Chain } from "./domain/chain.ts";
import type { SandboxState } from "./domain/state.ts";
import type { Faults } from "./faults.ts";
import type { Pricing } from "./pricing.ts";
import type { WebhookDispatcher } from "./webhooks/dispatcher.ts";

/** Everything a sandbox service needs, passed explicitly (no module-level state). */
export interface Core {
  state: SandboxState;
  clock: SandboxClock;
  scheduler: Scheduler;
  /** Replaced by POST /_sandbox/prices. */
  pricing: Pricing;
  banks: BankDirectory;
  chain: Chain;
  webhooks: WebhookDispatcher;
  faults: Faults;
  logger: Logger;
  /** http://127.0.0.1:PORT */
  origin: string;
  limits: { nameEnquiryPerMinute: number };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
