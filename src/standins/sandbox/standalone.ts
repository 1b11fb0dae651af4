import { loadEnvFile } from "#src/env-file.js";
import { createLogger } from "#src/log/logger.js";
import { DEFAULT_API_KEY, startSandbox } from "./index.ts";

/**
 * `npm run sandbox`: the emulator on 127.0.0.1:$SANDBOX_PORT (default 4010).
 * Env: SANDBOX_PORT, SANDBOX_API_KEY, SANDBOX_WEBHOOK_URL + SANDBOX_WEBHOOK_SECRET, LOG_LEVEL.
 * The only sandbox file that reads process.env; .env in the working directory is loaded first (the real
 * environment wins).
 */

function fail(message: string): never {
  console.error(`sandbox: ${message}`);
  process.exit(2);
}

try {
  loadEnvFile();
} catch (error) {
  fail((error as Error).message);
}
const env = process.env;
const portText = env.SANDBOX_PORT?.trim() || "4010";
if (!/^\d+$/.test(portText) || Number(portText) > 65535)
  fail(`SANDBOX_PORT must be a port number, got "${portText}"`);
const webhookUrl = env.SANDBOX_WEBHOOK_URL?.trim() || undefined;
if (webhookUrl && !/^https?:\/\//i.test(webhookUrl))
  fail("SANDBOX_WEBHOOK_URL must start with http:// or https://");

const logger = createLogger({ level: env.LOG_LEVEL?.trim() || "info", pretty: true, name: "sandbox" });
const apiKey = env.SANDBOX_API_KEY?.trim() || DEFAULT_API_KEY;

const sandbox = await startSandbox({
  port: Number(portText),
  apiKey,
  webhookUrl,
  webhookSecret: env.SANDBOX_WEBHOOK_SECRET?.trim() || undefined,
  logger,
}).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));

// A banner for the person who started it (the sandbox's own, documented local key), not a log line.
process.stdout.write(`Payout API sandbox
  base URL:        ${sandbox.baseUrl}
  API key:         ${sandbox.apiKey}   (header X-API-KEY)
  webhook:         ${webhookUrl ?? "none (POST /api/v1/webhook/register)"}
  webhook secret:  ${sandbox.webhookSecret}
  control routes:  ${sandbox.origin}/_sandbox/state   (see docs/sandbox.md)
Ctrl+C to stop.\n`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "sandbox stopping");
  sandbox.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
