import type { IncomingMessage } from "node:http";
import type { Speed } from "#src/api/index.js";
import type { BotDeps } from "#src/bot/context.js";
import { validationMessageKey } from "#src/bot/flow/api-errors.js";
import { checkBitcoinAddress } from "#src/bot/rules/bitcoin-address.js";
import { createLink } from "../newlink/conversation.ts";

const BODY_LIMIT = 4096;
const SPEEDS = new Set<Speed>(["slow", "medium", "fast"]);
/** ₦100,000,000 in kobo: far above any link; the API's own rules (minimum, maximum) still apply after this. */
const MAX_KOBO = 10_000_000_000;

interface Answer {
  status: number;
  body: unknown;
}

/**
 * POST /miniapp/api/links: the same fields, bounds and creation path as /newlink (name ≤ 60, description ≤ 200, whole
 * naira, an address on the bot's network, a speed); one create per request id, as /newlink's confirm screen.
 */
export async function createFromPage(
  deps: BotDeps,
  merchantId: number,
  req: IncomingMessage,
  t: (key: string) => string,
): Promise<Answer> {
  const input = await readJson(req);
  const invalid = (field: string): Answer => ({
    status: 400,
    body: { error: t(`merchant:miniapp.invalid_${field}`), field },
  });
  if (!input) return invalid("name");
  const name = text(input.name, 60);
  if (!name) return invalid("name");
  const description = text(input.description, 200) ?? "";
  const naira = Number(input.amount);
  if (!Number.isInteger(naira) || naira <= 0 || naira * 100 > MAX_KOBO) return invalid("amount");
  const address = checkBitcoinAddress(String(input.address ?? ""), deps.config.bitcoinNetwork);
  if (!address.ok) return invalid("address");
  const speed = String(input.speed) as Speed;
  if (!SPEEDS.has(speed)) return invalid("speed");
  const requestId = text(input.requestId, 64);
  if (!requestId) return invalid("name");
  const outcome = await createLink(deps, merchantId, `miniapp:${merchantId}:${requestId}`, {
    name,
    description,
    amount: naira * 100,
    address: address.address,
    speed,
    callbackUrl: undefined,
    lightning: deps.config.paymentLinkLightning,
  });
  if (outcome.ok) return { status: 201, body: { ref: outcome.ref, url: outcome.url } };
  const message =
    outcome.kind === "validation"
      ? t(validationMessageKey(outcome.apiMessage ?? undefined))
      : t("merchant:miniapp.create_failed");
  return { status: 502, body: { error: message } };
}

function text(value: unknown, max: number): string | undefined {
  const trimmed = typeof value === "string" ? value.trim() : "";
  return trimmed.length > 0 && trimmed.length <= max ? trimmed : undefined;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
