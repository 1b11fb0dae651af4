import { type Sandbox, startSandbox } from "#src/standins/sandbox/index.js";

/**
 * The embedded payout sandbox, in this process as in local mode. Its name-enquiry limit (30/min, like the real
 * API's per key) is lifted: a thousand simulated users enquiring in one minute is the load being measured, not a
 * misuse to be refused. Wallet balances are raised so payouts never run dry.
 */
export function startBenchSandbox(webhookUrl?: string): Promise<Sandbox> {
  return startSandbox({
    port: 0,
    nameEnquiryPerMinute: 10_000_000,
    balances: { NGN: 1_000_000_000_000, KES: 1_000_000_000, BTC: 100_000_000_000 },
    ...(webhookUrl ? { webhookUrl } : {}),
  });
}

/** Where a bench's bot finds the payout API (an in-process sandbox or one in a child process). */
export type SandboxAddress = Pick<Sandbox, "baseUrl" | "apiKey" | "webhookSecret">;
