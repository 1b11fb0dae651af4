import type { HandlerResponse, RawRequest, RawRequestHandler } from "#src/http/server.js";
import type { Logger } from "#src/log/logger.js";
import type { Metrics, WebhookOutcome } from "#src/metrics.js";
import type { DedupeMark, EventDeduper, OrderText, ProcessRegistry } from "#src/store/index.js";
import { CLAIM_WAIT_MS, claimEvent, dedupeDigest, dedupeIdentity } from "./dedupe.ts";
import type { IngestJobData } from "./ingest.ts";
import { jsonDepthExceeds } from "./json-depth.ts";
import type { EventRefs } from "./order-lookup.ts";
import { checkWebhookSignature } from "./signature.ts";

/**
 * POST /webhooks/payout. Verify the signature over the raw bytes, validate the shape, drop repeats, record durably
 * (the order's transition and outbox, a few Redis commands; or a queued job when that needs the API), answer 200 —
 * all before any slow work, so the sender gets its answer well inside its 5 s.
 *   forged or unsigned → 401, malformed (bad JSON, a shape we refuse, nested deeper than MAX_WEBHOOK_DEPTH) → 400,
 *   and nothing is queued; ping → 200; duplicate → 200; another delivery of the event still being recorded after
 *   CLAIM_WAIT_MS → 503.
 * A ping is answered whatever its signature (the provider pings on registration, notes 11); it does nothing.
 * `authentic` on the answer says whether the delivery proved its sender (the ops tap counts only those).
 */
interface ReceiverDeps {
  /** Registered webhook secret; without one only `allowUnsigned` lets events in. */
  secret: string | undefined;
  /**
   * A second secret accepted, never registered (PAYOUT_WEBHOOK_SECRET_PREVIOUS): during a rotation, deliveries
   * signed with the old secret (in flight, retried, or from processes not yet restarted) still get in.
   */
  previousSecret?: string | undefined;
  /** Sandbox/local only: accept deliveries that carry no signature at all (a wrong signature is still refused). */
  allowUnsigned: boolean;
  /**
   * Validates an envelope; throws (or returns nothing) when the shape is not a webhook event. `refs` (the order id
   * and quote hash it read) travel with the job, so ingest does not validate the event a second time.
   */
  parseEvent: (json: unknown) => { event: string; refs: EventRefs } | undefined | null;
  deduper: EventDeduper;
  /** This process's heartbeat: its claims name it, and the claims of dead processes are taken over. */
  processes?: ProcessRegistry;
  /** How long a delivery waits for another delivery of the same event to record it (default CLAIM_WAIT_MS). */
  claimWaitMs?: number;
  /**
   * Records the event durably (its transition and outbox, or a queued ingest job); resolves once it is, with
   * whether `mark` (the event's dedupe mark) was set in the same write. `jobId` makes a queued job added once.
   * `order`: the text of the order the event names, read with the dedupe claim.
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

type Count = (event: string, outcome: WebhookOutcome) => void;

const answer = (status: number, body: Record<string, unknown>, authentic = false): HandlerResponse => ({
  status,
  body,
  authentic,
});
/** An answer to a delivery whose signature was checked and let in. */
const trusted = (status: number, body: Record<string, unknown>) => answer(status, body, true);

export function createWebhookReceiver(deps: ReceiverDeps): RawRequestHandler {
  const { logger } = deps;
  const count: Count = (event, outcome) =>
    deps.metrics?.webhookEvents.inc({ event: KNOWN_EVENTS.has(event) ? event : "other", outcome });

  return async ({ rawBody, headers }: RawRequest): Promise<HandlerResponse> => {
    let json: unknown;
    try {
      json = jsonDepthExceeds(rawBody, MAX_WEBHOOK_DEPTH) ? undefined : JSON.parse(rawBody.toString("utf8"));
    } catch {
      json = undefined;
    }
    const envelope = asEnvelope(json);
    const signature = checkSignature(deps, rawBody, headers);
    const authentic = signature === "valid" || (signature === "missing" && deps.allowUnsigned);
    if (envelope?.event === "ping") {
      // Answered whatever its signature says (notes 11), but only a ping that proves its sender is a sign of life:
      // anyone can post an unsigned one.
      count("ping", "accepted");
      return answer(200, { status: "ok" }, authentic);
    }
    if (!authentic) {
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
      return trusted(200, { status: "ignored" });
    }

    return recordOnce(deps, count, envelope, parsed.refs);
  };
}

/**
 * Record an event once however many deliveries of it arrive, even at the same moment: each claims its identity
 * (dedupe.ts) in the round trip that reads the order it names; only the claimant records it and answers "ok", the
 * others answer "duplicate" once it is recorded. The claim becomes the long-lived mark where the effect is recorded,
 * or is released when recording fails, so the sender's retry gets through. A claimant that dies mid-way holds its
 * event until its heartbeat lapses (a few seconds; the claim's 30 s TTL without one): deliveries meanwhile get 503,
 * so the sender retries, and the first retry after that records it.
 */
async function recordOnce(
  deps: ReceiverDeps,
  count: Count,
  envelope: { event: string; data: unknown },
  refs: EventRefs,
): Promise<HandlerResponse> {
  const { logger } = deps;
  const identity = dedupeIdentity(envelope.event, envelope.data);
  const digest = identity ? dedupeDigest(identity) : undefined;
  const options = {
    orderId: refs.orderId,
    waitMs: deps.claimWaitMs ?? CLAIM_WAIT_MS,
    processes: deps.processes,
  };
  const claim = digest ? await claimEvent(deps.deduper, digest, options) : undefined;
  if (claim?.state === "seen") {
    count(envelope.event, "duplicate");
    return trusted(200, { status: "duplicate" });
  }
  if (claim?.state === "busy") {
    count(envelope.event, "error");
    logger.warn({ event: envelope.event }, "webhook still claimed by another delivery; the sender retries");
    return trusted(503, { status: "error", message: "temporarily unavailable" });
  }
  const job: IngestJobData = {
    kind: "webhook",
    envelope: { event: envelope.event, data: envelope.data },
    receivedAt: new Date().toISOString(),
    refs,
  };
  try {
    // Two jobs or transitions of one event would still be harmless (the transition is a compare-and-set, a job is
    // added once by its id): the claim is what keeps the sender's answer and the counts to one per event.
    const mark = digest ? deps.deduper.mark(digest) : undefined;
    const marked = await deps.accept(job, digest ? `wh-${digest}` : undefined, claim?.order, mark);
    if (digest && !marked) await deps.deduper.remember(digest);
  } catch (error) {
    // Not recorded (or not remembered): a 5xx makes the sender retry, and the retry is recorded again.
    count(envelope.event, "error");
    logger.error({ err: error, event: envelope.event }, "webhook could not be recorded");
    if (digest && claim?.state === "claimed") await release(deps, digest, claim.token);
    return trusted(503, { status: "error", message: "temporarily unavailable" });
  }
  count(envelope.event, "accepted");
  return trusted(200, { status: "ok" });
}

async function release(deps: ReceiverDeps, digest: string, token: string): Promise<void> {
  try {
    await deps.deduper.release(digest, token);
  } catch (error) {
    // The claim expires on its own; the sender's retries are answered 503 until it does.
    deps.logger.warn({ err: error }, "webhook claim not released; it expires");
  }
}

/** The registered secret first; the previous one only when the registered one does not match. */
function checkSignature(deps: ReceiverDeps, rawBody: Buffer, headers: RawRequest["headers"]) {
  const signature = checkWebhookSignature(rawBody, headers, deps.secret);
  if (signature !== "invalid" || !deps.previousSecret) return signature;
  const previous = checkWebhookSignature(rawBody, headers, deps.previousSecret);
  // Says when the provider has moved to the new secret: once these stop, the previous one can go.
  if (previous === "valid") deps.logger.info("webhook signed with the previous secret");
  return previous;
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
