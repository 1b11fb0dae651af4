import type { HandlerResponse, RawRequest, RawRequestHandler } from "#src/http/server.js";
import type { Logger } from "#src/log/logger.js";
import type { Metrics, WebhookOutcome } from "#src/metrics.js";
import type { DedupeMark, EventDeduper, OrderText } from "#src/store/index.js";
import { dedupeDigest, dedupeIdentity } from "./dedupe.ts";
import type { EventRefs, IngestJobData } from "./ingest.ts";
import { jsonDepthExceeds } from "./json-depth.ts";
import { checkWebhookSignature } from "./signature.ts";

/**
 * POST /webhooks/payout. Verify the signature over the raw bytes, validate the shape, drop repeats, record durably
 * (the order's transition and outbox, a few Redis commands; or a queued job when that needs the API), answer 200 —
 * all before any slow work, so the sender gets its answer well inside its 5 s.
 *   forged or unsigned → 401, malformed (bad JSON, a shape we refuse, nested deeper than MAX_WEBHOOK_DEPTH) → 400,
 *   and nothing is queued; ping → 200; duplicate → 200.
 * A ping is answered before the signature check (the provider pings on registration, notes 11); it does nothing.
 */
interface ReceiverDeps {
  /** Registered webhook secret; without one only `allowUnsigned` lets events in. */
  secret: string | undefined;
  /** Sandbox/local only: accept deliveries that carry no signature at all (a wrong signature is still refused). */
  allowUnsigned: boolean;
  /**
   * Validates an envelope; throws (or returns nothing) when the shape is not a webhook event. `refs` (the order id
   * and quote hash it read) travel with the job, so ingest does not validate the event a second time.
   */
  parseEvent: (json: unknown) => { event: string; refs: EventRefs } | undefined | null;
  deduper: EventDeduper;
  /**
   * Records the event durably (its transition and outbox, or a queued ingest job); resolves once it is, with
   * whether `mark` (the event's dedupe mark) was set in the same write. `jobId` makes a queued job added once.
   * `order`: the text of the order the event names, read with the dedupe check.
   */
  accept: (
    event: IngestJobData,
    jobId: string | undefined,
    order?: OrderText,
    mark?: DedupeMark,
  ) => Promise<boolean>;
  logger: Logger;
  metrics?: Metrics;
}

/**
 * Deepest nesting a webhook may have. Real events are 3–4 levels deep; anything far deeper can never be queued (the
 * job payload's serialisation overflows the stack), so it is malformed input, answered 400 rather than a 503 the
 * sender would retry for an hour.
 */
const MAX_WEBHOOK_DEPTH = 32;

const KNOWN_EVENTS = new Set(["ping", "payment.received", "payment.sent", "payment_link.settled"]);

export function createWebhookReceiver(deps: ReceiverDeps): RawRequestHandler {
  const { logger } = deps;
  const count = (event: string, outcome: WebhookOutcome) =>
    deps.metrics?.webhookEvents.inc({ event: KNOWN_EVENTS.has(event) ? event : "other", outcome });
  const answer = (status: number, body: Record<string, unknown>): HandlerResponse => ({ status, body });

  return async ({ rawBody, headers }: RawRequest): Promise<HandlerResponse> => {
    let json: unknown;
    try {
      json = jsonDepthExceeds(rawBody, MAX_WEBHOOK_DEPTH) ? undefined : JSON.parse(rawBody.toString("utf8"));
    } catch {
      json = undefined;
    }
    const envelope = asEnvelope(json);
    if (envelope?.event === "ping") {
      count("ping", "accepted");
      return answer(200, { status: "ok" });
    }

    const signature = checkWebhookSignature(rawBody, headers, deps.secret);
    const trusted = signature === "valid" || (signature === "missing" && deps.allowUnsigned);
    if (!trusted) {
      count(envelope?.event ?? "unknown", "forged");
      logger.warn({ signature, event: envelope?.event }, "webhook refused: bad or missing signature");
      return answer(401, { status: "error", message: "invalid signature" });
    }

    const parsed = envelope ? parse(deps.parseEvent, json) : undefined;
    if (!envelope || !parsed) {
      count(envelope?.event ?? "unknown", "malformed");
      logger.warn({ event: envelope?.event, bytes: rawBody.length }, "webhook refused: malformed");
      return answer(400, { status: "error", message: "malformed event" });
    }
    if (!KNOWN_EVENTS.has(envelope.event)) {
      // A well-formed event we do not handle yet: acknowledge so the sender does not retry it forever.
      count(envelope.event, "ignored");
      logger.info({ event: envelope.event }, "webhook event type not handled");
      return answer(200, { status: "ignored" });
    }

    const identity = dedupeIdentity(envelope.event, envelope.data);
    const digest = identity ? dedupeDigest(identity) : undefined;
    // The dedupe check also reads the order the event names: ingest's first read, in the same command.
    const checked = digest ? await deps.deduper.seen(digest, parsed.refs.orderId) : undefined;
    if (checked?.seen) {
      count(envelope.event, "duplicate");
      return answer(200, { status: "duplicate" });
    }
    const job: IngestJobData = {
      kind: "webhook",
      envelope: { event: envelope.event, data: envelope.data },
      receivedAt: new Date().toISOString(),
      refs: parsed.refs,
    };
    try {
      // Two deliveries of one event racing here apply it once (the transition is a compare-and-set) or queue one
      // job (add-once by job id).
      const mark = digest ? deps.deduper.mark(digest) : undefined;
      const marked = await deps.accept(job, digest ? `wh-${digest}` : undefined, checked?.order, mark);
      if (digest && !marked) await deps.deduper.remember(digest);
    } catch (error) {
      // Not recorded (or not remembered): a 5xx makes the sender retry, and the retry is recorded again.
      count(envelope.event, "error");
      logger.error({ err: error, event: envelope.event }, "webhook could not be recorded");
      return answer(503, { status: "error", message: "temporarily unavailable" });
    }
    count(envelope.event, "accepted");
    return answer(200, { status: "ok" });
  };
}

function asEnvelope(json: unknown): { event: string; data: unknown } | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const { event, data } = json as { event?: unknown; data?: unknown };
  if (typeof event !== "string" || event === "" || typeof data !== "object" || data === null)
    return undefined;
  return { event, data };
}

function parse(parseEvent: ReceiverDeps["parseEvent"], json: unknown) {
  try {
    return parseEvent(json) ?? undefined;
  } catch {
    return undefined;
  }
}
