import { CORRIDORS } from "#src/corridors/index.js";
import { escapeHtml, type TFunction } from "#src/i18n/index.js";
import { formatMoney } from "#src/money/index.js";
import { breakdownLines, formatExpiryTime } from "#src/orders/index.js";
import { formatCountdown, type QuoteCard } from "./quote-orders.ts";
import { describeBeneficiary, type PayoutBeneficiary } from "./recipient.ts";

/** The quote card's text: money first, then who gets it, then how long the price holds and the check code. */
interface QuoteCardInput {
  quoted: QuoteCard;
  beneficiary: PayoutBeneficiary;
  /** Name shown when the beneficiary object has none (a till). */
  name: string;
  words: Parameters<typeof describeBeneficiary>[1];
  /** When the quote stops holding (the API's expiry) and now, both on the API's clock (ms). */
  deadlineMs: number;
  nowMs: number;
  /** The daily allowance before this payout, where ops set one: the card says what is left after it. */
  allowance?: { limit: number; remaining: number };
}

/** Where the amount was rounded down to whole shillings (src/bot/payout/payable-quote.ts), the card says so. */
function roundedLines(input: QuoteCardInput, t: TFunction, locale: string): string[] {
  const from = input.quoted.roundedFrom;
  if (from === undefined) return [];
  const { beneficiary } = input;
  const airtel =
    "identifierType" in beneficiary &&
    beneficiary.identifierType === "paytophone" &&
    beneficiary.identifiers.network === "airtel";
  return [
    t("payout:quote.whole_shillings", {
      rail: escapeHtml(airtel ? input.words.airtel : input.words.mpesa),
      exact: escapeHtml(formatMoney(from, input.quoted.figures.target, locale)),
    }),
  ];
}

export function renderQuoteCard(input: QuoteCardInput, t: TFunction, locale: string): string {
  const { quoted } = input;
  const { figures } = quoted;
  const target = figures.target;
  const view = describeBeneficiary(input.beneficiary, input.words, input.name);
  const verified = CORRIDORS[quoted.corridor].nameVerified;
  const deadline = { expiresAt: new Date(input.deadlineMs).toISOString(), corridor: quoted.corridor };
  const money = breakdownLines(
    {
      pay: { amount: figures.paySats, currency: "BTCSAT" },
      fee: { amount: figures.feeSats, currency: "BTCSAT" },
      receive: { amount: figures.receive, currency: target },
    },
    t,
    locale,
  );
  const lines = [
    t("payout:quote.title", { code: quoted.verificationCode }),
    "",
    t("quote:pay", { amount: escapeHtml(formatMoney(figures.paySats, "BTCSAT", locale)) }),
    money.breakdown,
    t("payout:quote.receive", { amount: escapeHtml(formatMoney(figures.receive, target, locale)) }),
    ...roundedLines(input, t, locale),
  ];
  if (money.rate) lines.push(money.rate);
  if (input.allowance) {
    lines.push(
      t("payout:quote.allowance", {
        left: escapeHtml(
          formatMoney(Math.max(0, input.allowance.remaining - figures.receive), target, locale),
        ),
        limit: escapeHtml(formatMoney(input.allowance.limit, target, locale)),
      }),
    );
  }
  lines.push(
    "",
    t(verified ? "payout:quote.to_verified" : "payout:quote.to", {
      name: escapeHtml(view.name || input.name),
      where: escapeHtml(view.where),
    }),
    "",
    t("payout:quote.expires", {
      countdown: formatCountdown(input.deadlineMs - input.nowMs),
      time: formatExpiryTime(deadline, locale),
    }),
    t("payout:quote.code_hint", { code: quoted.verificationCode }),
  );
  return lines.join("\n");
}
