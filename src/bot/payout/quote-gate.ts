import type { BotDeps } from "#src/bot/context.js";
import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { maintenanceNotice, quotesPaused } from "#src/bot/rules/pauses.js";
import { supersede } from "#src/bot/rules/supersede.js";
import type { Country, CurrencyCode } from "#src/money/index.js";
import { type Allowance, allowanceFor, overLimitNotice } from "./allowance.ts";
import { type RequestRefusal, refusalText } from "./requests/refusals.ts";

/**
 * What every payout quote passes before it is made and again at Confirm, whichever way it is paid (Lightning or a
 * naira transfer): ops' pause of the corridor, the user's daily allowance there, and the money request it pays.
 */

/** Back to the amount screen with a notice above it. */
export type BackToAmount = { back: "amount"; notice: string };

/**
 * Before a quote: a pause ops set while the user was mid-flow ends the flow politely ("cancelled"); an amount in the
 * recipient's money over what is left today goes back to the amount (an amount in the payer's currency is known in
 * the recipient's only once quoted, and is checked then). Otherwise the allowance, if ops set a limit.
 */
export async function gateQuote(
  io: FlowIo,
  country: Country,
  amount: { minor: number; currency: CurrencyCode },
  payerCurrency: CurrencyCode,
): Promise<{ allowance: Allowance | undefined } | BackToAmount | "cancelled"> {
  const pause = await io.conversation.external(() => quotesPaused(io.deps, country));
  if (pause.paused) {
    await io.reply(() => maintenanceNotice(io.t, pause), { parse_mode: "HTML" });
    return "cancelled";
  }
  const allowance = await currentAllowance(io, country);
  if (allowance && amount.currency !== payerCurrency && amount.minor > allowance.remaining) {
    return { back: "amount", notice: overLimitNotice(io, country, allowance) };
  }
  return { allowance };
}

/**
 * At Confirm, when the card was shown under a limit: another payout may have been confirmed since (an older card's
 * Confirm), so the allowance is read again without this order; over it, the quote is dropped and the user goes back.
 */
export async function recheckAllowance(
  io: FlowIo,
  country: Country,
  orderId: string,
  receive: number,
): Promise<BackToAmount | undefined> {
  const fresh = await currentAllowance(io, country, orderId);
  if (!fresh || receive <= fresh.remaining) return undefined;
  await io.call("supersede", (deps) => supersede(deps, orderId, "cancelled"));
  return { back: "amount", notice: overLimitNotice(io, country, fresh) };
}

/**
 * A money request is paid once: at Confirm it is held for this order (until the quote's deadline) before the payer
 * is told where to pay; the refusal when another payer holds it, or it expired or was cancelled.
 */
export async function holdRequest(
  deps: Pick<BotDeps, "store">,
  requestId: string | undefined,
  orderId: string,
  deadlineMs: number,
  nowMs: number,
): Promise<RequestRefusal | undefined> {
  if (!requestId) return undefined;
  const claim = await deps.store.requests.claim(requestId, orderId, deadlineMs, nowMs);
  return claim === "ok" ? undefined : claim;
}

/** The request refused this order at Confirm: the quote is dropped and the payer told why; the flow ends. */
export async function dropRefusedByRequest(
  io: FlowIo,
  orderId: string,
  refusal: RequestRefusal,
): Promise<"cancelled"> {
  await io.call("supersede", (deps) => supersede(deps, orderId, "cancelled"));
  await io.show(() => refusalText(io.t, refusal));
  return "cancelled";
}

/** The user's daily allowance in `country`, as a step of the flow (undefined: no limit, or it could not be read). */
export async function currentAllowance(
  io: FlowIo,
  country: Country,
  except?: string,
): Promise<Allowance | undefined> {
  const read = await io.call("allowance", (deps) =>
    allowanceFor(deps, io.userId, country, deps.now(), except),
  );
  return read.ok ? read.value : undefined;
}
