import { z } from "zod";
import { opt } from "./schemas/common.ts";
import { type Transaction, transactionSchema } from "./schemas/transaction.ts";

/**
 * Webhook events pushed by the API: `{event, data}` (spec 6, notes 11). Each parsed event gets a `type` to switch
 * on; names we do not know become `type: "unknown"` instead of failing, so a new event never breaks delivery.
 * payment.* data is a Transaction in any of its shapes: NGN `transactionMetadata`, BTC `btcUsdMetadata`, KES spec
 * `{id, amount, currency, status, metadata}` or the real KES/ZAR/GHS Transaction with `*TransactionMetadata`.
 */

const pingDataSchema = z.looseObject({ message: opt(z.string()), timestamp: opt(z.string()) });

const paymentLinkSettledDataSchema = z.looseObject({
  paymentRef: z.string(),
  paymentLink: opt(z.string()),
  callbackUrl: opt(z.string()),
  settlementCurrency: opt(z.string()),
  paymentCurrency: opt(z.string()),
  paymentMethod: opt(z.string()),
  transaction: opt(transactionSchema),
});

const KNOWN_EVENTS = ["ping", "payment.received", "payment.sent", "payment_link.settled"] as const;

const pingEvent = z
  .looseObject({ event: z.literal("ping"), data: opt(pingDataSchema) })
  .transform((event) => ({ ...event, type: "ping" as const }));
const paymentReceivedEvent = z
  .looseObject({ event: z.literal("payment.received"), data: transactionSchema })
  .transform((event) => ({ ...event, type: "payment.received" as const }));
const paymentSentEvent = z
  .looseObject({ event: z.literal("payment.sent"), data: transactionSchema })
  .transform((event) => ({ ...event, type: "payment.sent" as const }));
const paymentLinkSettledEvent = z
  .looseObject({ event: z.literal("payment_link.settled"), data: paymentLinkSettledDataSchema })
  .transform((event) => ({ ...event, type: "payment_link.settled" as const }));
const unknownEvent = z
  .looseObject({
    event: z.string().refine((name) => !(KNOWN_EVENTS as readonly string[]).includes(name)),
    data: z.unknown(),
  })
  .transform((event) => ({ ...event, type: "unknown" as const }));

const webhookEventSchema = z.union([
  pingEvent,
  paymentReceivedEvent,
  paymentSentEvent,
  paymentLinkSettledEvent,
  unknownEvent,
]);
export type WebhookEvent = z.output<typeof webhookEventSchema>;

/**
 * The schema a body is checked against, chosen by its event name: the union would check a payment.sent body
 * against payment.received's schema first, Transaction and all, only to fail on the name (a second full parse of
 * every payment.sent). A body without a string name goes through the union, whose issues say what is missing.
 */
const schemaByEvent = new Map<string, z.ZodType<WebhookEvent, unknown>>([
  ["ping", pingEvent],
  ["payment.received", paymentReceivedEvent],
  ["payment.sent", paymentSentEvent],
  ["payment_link.settled", paymentLinkSettledEvent],
]);

function schemaFor(json: unknown): z.ZodType<WebhookEvent, unknown> {
  const name = (json as { event?: unknown } | null)?.event;
  if (typeof name !== "string") return webhookEventSchema;
  return schemaByEvent.get(name) ?? unknownEvent;
}

type WebhookEventParseResult = { ok: true; event: WebhookEvent } | { ok: false; error: string };

/**
 * Parse a delivery: the raw body (string or bytes) or already-parsed JSON. Never throws. A known event whose data
 * does not fit is `ok: false` with the failing paths (no values: they may be account or phone numbers).
 */
export function parseWebhookEvent(input: unknown): WebhookEventParseResult {
  let json = input;
  if (typeof input === "string" || input instanceof Uint8Array) {
    try {
      json = JSON.parse(typeof input === "string" ? input : new TextDecoder().decode(input));
    } catch {
      return { ok: false, error: "body is not JSON" };
    }
  }
  const parsed = schemaFor(json).safeParse(json);
  if (parsed.success) return { ok: true, event: parsed.data };
  const known = (json as { event?: unknown } | null)?.event;
  const name = typeof known === "string" ? known : "(no event name)";
  return { ok: false, error: `${name}: ${describeIssues(parsed.error, name)}` };
}

function describeIssues(error: z.ZodError, name: string): string {
  // In the event union's error (a body without a name) the branch for this event holds the useful issues; a union
  // deeper in (an amount as number or text) is reported where it is.
  const issues = error.issues.flatMap((issue) =>
    issue.code === "invalid_union" && issue.path.length === 0
      ? (issue.errors.find((branch) => !branch.some((sub) => sub.path[0] === "event")) ??
        issue.errors[0] ??
        [])
      : [issue],
  );
  const text = issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
  return text || `invalid ${name} event`;
}

/** The transaction an event is about: payment.* data, or payment_link.settled's `transaction`. */
export function eventTransaction(event: WebhookEvent): Transaction | undefined {
  if (event.type === "payment.received" || event.type === "payment.sent") return event.data;
  if (event.type === "payment_link.settled") return event.data.transaction;
  return undefined;
}

type MetadataLike = { orderId?: string; customerReference?: string } | undefined;

function metadataOf(transaction: Transaction): MetadataLike[] {
  return [
    transaction.transactionMetadata,
    transaction.btcUsdMetadata,
    transaction.kesTransactionMetadata,
    transaction.zarTransactionMetadata,
    transaction.ghsTransactionMetadata,
    transaction.stablecoinTransactionMetadata,
    transaction.metadata,
  ];
}

const ORDER_ID = /^\d+-\d+$/;

/**
 * The API order id ("56188-2561") of whichever payload arrived: `orderId` of any metadata variant, a top-level
 * `orderId`, or the KES spec shape's `metadata.reference` when it has the order-id form.
 */
export function eventOrderId(event: WebhookEvent): string | undefined {
  const transaction = eventTransaction(event);
  if (!transaction) return undefined;
  for (const metadata of metadataOf(transaction)) if (metadata?.orderId) return metadata.orderId;
  const topLevel = (transaction as { orderId?: unknown }).orderId;
  if (typeof topLevel === "string" && topLevel) return topLevel;
  const reference = transaction.metadata?.reference;
  return reference && ORDER_ID.test(reference) ? reference : undefined;
}

/** The quote's payment hash: `data.hash`, the KES spec shape's `metadata.hash`, or the settled transaction's. */
export function eventHash(event: WebhookEvent): string | undefined {
  const transaction = eventTransaction(event);
  return transaction?.hash || transaction?.metadata?.hash || undefined;
}

/**
 * The reference the bot gave the quote (`customerReference`), wherever this variant keeps it; for bitcoin
 * metadata also the older `externalRef`.
 */
export function eventCustomerReference(event: WebhookEvent): string | undefined {
  const transaction = eventTransaction(event);
  if (!transaction) return undefined;
  for (const metadata of metadataOf(transaction))
    if (metadata?.customerReference) return metadata.customerReference;
  return transaction.btcUsdMetadata?.externalRef || undefined;
}

/** Key for de-duplication: the same `data.id` may arrive twice, PENDING then SUCCESS (notes 11). */
export function eventDedupeKey(event: WebhookEvent): string | undefined {
  const transaction = eventTransaction(event);
  if (!transaction) return undefined;
  return `${event.type}:${transaction.id}:${transaction.status}`;
}
