import type { Update } from "grammy/types";
import type { Logger } from "pino";
import { Agent, request } from "undici";
import type { UpdateQueue } from "./updates.ts";

interface WebhookConfig {
  url: string;
  secretToken: string | undefined;
  maxConnections: number;
}

interface WebhookOptions {
  retryBaseMs: number;
  retryMaxMs: number;
  timeoutMs: number;
  logger: Logger;
  /** A JSON body with `method` in the webhook response is executed as an API call (webhook reply). */
  onReply: (method: string, params: Record<string, unknown>) => Promise<void>;
  onDeliveryStart: () => void;
  onDeliveryEnd: () => void;
}

/** Pushes queued updates to the bot's webhook, with the secret header, concurrency and retries. */
export class WebhookPusher {
  config: WebhookConfig | undefined;
  lastError: { date: number; message: string } | undefined;
  private readonly inFlight = new Set<number>();
  private retryTimer: NodeJS.Timeout | undefined;
  private backoffMs = 0;
  private generation = 0;
  private closed = false;
  /** Own connection pool, destroyed on close so the bot's server is not held open by keep-alive sockets. */
  private readonly agent = new Agent({ keepAliveTimeout: 2_000 });

  constructor(
    private readonly queue: UpdateQueue,
    private readonly options: WebhookOptions,
  ) {
    queue.listeners.add(() => this.kick());
  }

  get active(): boolean {
    return this.config !== undefined;
  }

  set(config: WebhookConfig): void {
    this.config = config;
    this.generation += 1;
    this.backoffMs = 0;
    this.lastError = undefined;
    this.clearRetry();
    this.kick();
  }

  clear(): void {
    this.config = undefined;
    this.generation += 1;
    this.clearRetry();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clear();
    await this.agent.destroy();
  }

  kick(): void {
    const config = this.config;
    if (!config || this.closed || this.retryTimer) return;
    for (const update of this.queue.pending()) {
      if (this.inFlight.size >= config.maxConnections) break;
      if (this.inFlight.has(update.update_id)) continue;
      if (!this.queue.isAllowed(update)) {
        // remove() notifies listeners, which kick again with the shorter queue.
        this.queue.remove(update.update_id);
        return;
      }
      void this.deliver(update, config, this.generation);
    }
  }

  private async deliver(update: Update, config: WebhookConfig, generation: number): Promise<void> {
    this.inFlight.add(update.update_id);
    this.options.onDeliveryStart();
    let failure: string | undefined;
    try {
      const response = await request(config.url, {
        method: "POST",
        dispatcher: this.agent,
        headers: {
          "content-type": "application/json",
          ...(config.secretToken ? { "x-telegram-bot-api-secret-token": config.secretToken } : {}),
        },
        body: JSON.stringify(update),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      const text = await response.body.text();
      if (response.statusCode >= 200 && response.statusCode < 300) {
        // Delivered: the bot has it even if the webhook was changed meanwhile.
        this.queue.remove(update.update_id);
        await this.webhookReply(text);
      } else failure = `Wrong response from the webhook: ${response.statusCode}`;
    } catch (error) {
      failure = (error as { code?: string }).code === "ECONNREFUSED" ? "Connection refused" : String(error);
    } finally {
      this.inFlight.delete(update.update_id);
      this.options.onDeliveryEnd();
    }
    if (generation !== this.generation) return this.kick();
    if (failure === undefined) {
      this.backoffMs = 0;
      return this.kick();
    }
    this.lastError = { date: Math.floor(Date.now() / 1000), message: failure };
    this.options.logger.debug(
      { update_id: update.update_id, failure },
      "telegram emulator: webhook delivery failed",
    );
    this.backoffMs = Math.min(
      this.options.retryMaxMs,
      this.backoffMs ? this.backoffMs * 2 : this.options.retryBaseMs,
    );
    this.retryTimer ??= setTimeout(() => {
      this.retryTimer = undefined;
      this.kick();
    }, this.backoffMs);
  }

  private async webhookReply(text: string): Promise<void> {
    if (!text.trim().startsWith("{")) return;
    try {
      const { method, ...params } = JSON.parse(text) as { method?: unknown };
      if (typeof method === "string") await this.options.onReply(method, params);
    } catch (error) {
      this.options.logger.warn({ err: error }, "telegram emulator: webhook reply failed");
    }
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  pendingCount(): number {
    return this.queue.size;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }
}
