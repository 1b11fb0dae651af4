import type { InlineKeyboard } from "grammy";
import { describeApiError } from "#src/bot/flow/api-errors.js";
import { type FlowIo, fromFailure, type Lazy, resolve } from "#src/bot/flow/flow-io.js";
import { CORRIDORS } from "#src/corridors/index.js";
import type { Country, CurrencyCode } from "#src/money/index.js";
import { cancelOnlyKeyboard } from "./keyboards.ts";
import {
  describeBeneficiary,
  type PayoutBeneficiary,
  parseRecipientName,
  recipientLabel,
} from "./recipient.ts";

/** What the flow knows about the beneficiary once a recipient step is done. */
export interface Draft {
  country: Country;
  /** Exactly what POST /quote gets (for NGN: as name enquiry returned it). */
  beneficiary: PayoutBeneficiary;
  /** Masked one-line label: "GTBANK PLC ••6789 · ADA OBI". */
  label: string;
  /** Who gets the money, for prompts ("How much should ADA OBI receive?"). */
  name: string;
  /** Saved recipient this payout goes to, if any. */
  recipientId?: string;
  /** The money request this payout pays (its token), if any: claimed at Confirm, told to the requester. */
  requestId?: string;
}

export interface AmountChoice {
  minor: number;
  currency: CurrencyCode;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** A notice (an error, a hint) shown above a prompt on the same screen. */
export function withNotice(notice: string | undefined, prompt: string): string {
  return notice ? `${notice}\n\n${prompt}` : prompt;
}

/** Wait for one of this screen's buttons; typed text gets the "use the buttons" hint. */
export async function askButton(
  io: FlowIo,
  hint: Lazy<string> = () => io.t("payout:hint.buttons"),
): Promise<{ data: string; queryId: string }> {
  for (;;) {
    const answer = await io.ask({ hint });
    if (answer.kind === "button") return answer;
  }
}

/**
 * Show a prompt and wait for typed text that `parse` accepts; bad input gets its message above the prompt and
 * the step goes on. A button of the screen (other than ❌, handled outside) is returned as `{ action }`.
 */
export async function promptText<T>(
  io: FlowIo,
  prompt: Lazy<string>,
  parse: (text: string) => Parsed<T>,
  options: { keyboard?: () => InlineKeyboard; notice?: string } = {},
): Promise<{ value: T } | { action: string }> {
  const keyboard = options.keyboard ?? (() => cancelOnlyKeyboard(io.t));
  const { notice } = options;
  await io.show(() => withNotice(notice, resolve(prompt)), keyboard);
  for (;;) {
    const answer = await io.ask({ text: true, hint: () => io.t("payout:hint.text") });
    if (answer.kind === "button") return { action: answer.data };
    const parsed = parse(answer.text);
    if (parsed.ok) return { value: parsed.value };
    const { error } = parsed;
    await io.show(() => withNotice(error, resolve(prompt)), keyboard);
  }
}

/** promptText for screens whose only button is ❌: loops until a value. */
export async function promptValue<T>(
  io: FlowIo,
  prompt: Lazy<string>,
  parse: (text: string) => Parsed<T>,
): Promise<T> {
  for (;;) {
    const result = await promptText(io, prompt, parse);
    if ("value" in result) return result.value;
  }
}

/** The recipient's (or business's) name. */
export function promptName(io: FlowIo, country: Country, prompt: Lazy<string>): Promise<string> {
  return promptValue(io, prompt, (text) => {
    const parsed = parseRecipientName(text);
    return parsed.ok
      ? parsed
      : { ok: false, error: io.t("payout:error.name", { example: CORRIDORS[country].nameExample }) };
  });
}

/** A failed lookup: the calm sentence for it. */
export function failureText(io: FlowIo, failure: Parameters<typeof fromFailure>[0]): string {
  return describeApiError(fromFailure(failure), io.t).text;
}

/** Method words used in labels ("M-Pesa ••5678", "Till 123456"). */
export function methodWords(io: FlowIo) {
  const { t } = io;
  return io.memo("method-words", () => ({
    mpesa: t("payout:ke.network.mpesa"),
    airtel: t("payout:ke.network.airtel"),
    paybill: t("payout:label.paybill"),
    till: t("payout:label.till"),
    mtn: t("payout:label.mtn"),
  }));
}

/** A finished recipient step: the beneficiary with its masked label. */
export function draftOf(
  io: FlowIo,
  country: Country,
  beneficiary: PayoutBeneficiary,
  name: string,
  recipientId?: string,
): Draft {
  const view = describeBeneficiary(beneficiary, methodWords(io), name);
  return {
    country,
    beneficiary,
    label: recipientLabel(view),
    name: view.name || name,
    ...(recipientId ? { recipientId } : {}),
  };
}

/** A stored beneficiary (saved recipient, earlier order) → draft; its label was masked when it was stored. */
export function storedDraft(
  io: FlowIo,
  country: Country,
  details: Record<string, unknown>,
  label: string,
  recipientId: string | undefined,
): Draft {
  const beneficiary = details as unknown as PayoutBeneficiary;
  // The label keeps a till's name, which the beneficiary itself has no field for.
  const labelName = label.includes(" · ") ? (label.split(" · ").at(-1) ?? label) : label;
  const draft = draftOf(io, country, beneficiary, labelName, recipientId);
  return { ...draft, label };
}
