import type { BotDeps } from "#src/bot/context.js";

/** What opening, paying and settling a refund need (the refund's own modules share it, so none imports another for it). */
export type RefundDeps = Pick<
  BotDeps,
  "config" | "logger" | "store" | "translator" | "accountLanguage" | "now"
> & {
  api: Pick<BotDeps["api"], "withdrawBtc" | "withdrawNgn" | "getTransactions">;
};
