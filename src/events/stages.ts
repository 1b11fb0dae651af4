import { parseWebhookEvent } from "#src/api/index.js";
import type { Logger } from "#src/log/logger.js";
import { createOrderMessages } from "#src/orders/messages.js";
import type { ProcessRegistry } from "#src/store/index.js";
import { createDeliveryProcessor } from "./delivery.ts";
import { createIngestProcessor, type IngestJobData, markedBy, webhookEventRefs } from "./ingest.ts";
import { createInlineDeliveries } from "./inline-deliveries.ts";
import { Notifier } from "./notifier.ts";
import { NeedsQueueError } from "./order-lookup.ts";
import type { EventsPipelineDeps } from "./pipeline-types.ts";
import type { QueueBackend } from "./queue.ts";
import { createWebhookReceiver } from "./receiver.ts";
import { createRequestNotices } from "./request-notices.ts";
import type { DeliveryJobData } from "./types.ts";

/**
 * The pipeline's three stages, each one module with one entry: receive (receiver.ts: signature, dedupe claim, hand
 * over) → ingest (ingest.ts: facts → the order's transition, recorded with its outbox states and the delivery's
 * claim in one script) → deliver (delivery.ts: the card through src/orders/messages.ts, then the notifications).
 * They exist from the start: a web process (which never starts the queue workers) records and delivers the events
 * it receives itself.
 */
export interface StageContext {
  deps: EventsPipelineDeps;
  queues: QueueBackend<IngestJobData, DeliveryJobData>;
  processes: ProcessRegistry;
  logger: Logger;
  now: () => number;
  onchainPollMs: number;
}

export function createStages(context: StageContext) {
  const deliveryConcurrency = context.deps.deliveryConcurrency ?? 16;
  const deliver = deliverStage(context);
  const inline = createInlineDeliveries({
    deliver,
    deliveries: context.queues.deliveries,
    outbox: context.deps.store.outbox,
    logger: context.logger,
    concurrency: deliveryConcurrency,
  });
  const ingest = ingestStage(context, inline);
  const receive = receiveStage(context, ingest);
  return { receive, ingest, deliver, inline, deliveryConcurrency };
}

function deliverStage({ deps, queues, processes, logger, now }: StageContext) {
  const { telegram, store, metrics } = deps;
  const messages = createOrderMessages({ telegram, store, now, logger, metrics });
  return createDeliveryProcessor({
    store,
    outbox: store.outbox,
    notifier: new Notifier({ telegram, messages, logger, metrics }),
    messages,
    deliveries: queues.deliveries,
    translator: deps.translator,
    languageOf: deps.languageOf,
    logger,
    onAlert: deps.onAlert,
    onPaymentLinkEvent: deps.onPaymentLinkEvent,
    onRequestStage: createRequestNotices({
      telegram,
      store,
      translator: deps.translator,
      languageOf: (userId) => deps.languageOf(userId),
      logger,
      now,
    }),
    processes,
    onNotificationNotRepeated: () => metrics?.notifications.inc({ kind: "not_repeated" }),
    now,
  });
}

function ingestStage(context: StageContext, inline: ReturnType<typeof createInlineDeliveries>) {
  const { deps } = context;
  return createIngestProcessor({
    store: deps.store,
    outbox: deps.store.outbox,
    deliveries: context.queues.deliveries,
    inline,
    api: deps.api,
    logger: context.logger,
    now: context.now,
    followUpMs: deps.followUpMs ?? 60_000,
    onchainPollMs: context.onchainPollMs,
    paymentLinkHook: !!deps.onPaymentLinkEvent,
  });
}

function receiveStage(
  { deps, queues, processes, logger }: StageContext,
  ingest: ReturnType<typeof createIngestProcessor>,
) {
  return createWebhookReceiver({
    secret: deps.webhookSecret,
    previousSecret: deps.previousWebhookSecret,
    allowUnsigned: deps.allowUnsigned ?? false,
    parseEvent: (json) => {
      const parsed = parseWebhookEvent(json);
      return parsed.ok ? { event: parsed.event.event, refs: webhookEventRefs(parsed.event) } : undefined;
    },
    deduper: deps.store.webhookDedupe,
    processes,
    accept: async (event, jobId, known, mark) => {
      try {
        const outcome = await ingest(
          { id: jobId ?? "inline", name: "webhook", data: event, attemptsMade: 0 },
          { inline: true, ...(known ? { known } : {}), ...(mark ? { mark } : {}) },
        );
        return mark !== undefined && markedBy(outcome);
      } catch (error) {
        // The queue retries what could not be applied here (a Redis hiccup, an order only the API can name).
        if (!(error instanceof NeedsQueueError))
          logger.warn({ err: error }, "event not applied on receipt; queued for the ingest worker");
        await queues.ingest.add("webhook", event, jobId ? { jobId } : {});
        return false;
      }
    },
    logger,
    metrics: deps.metrics,
  });
}
