import type { Sandbox } from "#src/standins/sandbox/index.js";
import { serveParent } from "./child.ts";
import { startBenchSandbox } from "./sandbox.ts";

/**
 * The payout sandbox in its own process, for benches that measure the bot's process (memory): a production bot
 * talks to the payout API over the network and never loads the sandbox's code or holds its orders.
 */
let sandbox: Sandbox | undefined;

serveParent({
  async start() {
    sandbox ??= await startBenchSandbox();
    return { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, webhookSecret: sandbox.webhookSecret };
  },
});
