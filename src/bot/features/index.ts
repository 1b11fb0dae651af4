import type { BotDeps } from "../context.ts";
import { rateAlertsFeature } from "../payout/alerts/feature.ts";
import { repeatsFeature } from "../payout/repeats/feature.ts";
import { requestsFeature } from "../requests/feature.ts";
import { adminFeature, maintenanceFeature } from "./admin/index.ts";
import { buyFeature } from "./buy.ts";
import { historyFeature } from "./history.ts";
import { languageFeature } from "./language.ts";
import { merchantFeature } from "./merchant/index.ts";
import { payoutFeature } from "./payout.ts";
import { priceFeature } from "./price.ts";
import { receiptFeature } from "./receipt.ts";
import { recipientsFeature } from "./recipients.ts";
import { refundFeature } from "./refund.ts";
import { statusFeature } from "./status.ts";
import type { Feature } from "./types.ts";
import { welcomeFeature } from "./welcome.ts";

export type { Feature } from "./types.ts";

/**
 * Every feature of the bot, in the order their handlers run. Add a feature here (one Composer per feature, its
 * conversations alongside); createBot installs them all.
 */
export function allFeatures(_deps: BotDeps): Feature[] {
  return [
    maintenanceFeature(), // first of all: answers /send, /buy, "send again"… while ops paused quotes
    buyFeature(), // before payout: its "New quote" handler takes buy orders and passes the rest on
    payoutFeature(), // first: its /start send_<token> deep link runs before welcome's /start
    requestsFeature(), // its /start req_<token> and /start request run before welcome's /start too
    { name: "welcome", composer: welcomeFeature() },
    { name: "language", composer: languageFeature() },
    historyFeature(),
    recipientsFeature(),
    repeatsFeature(),
    statusFeature(),
    receiptFeature(),
    refundFeature(),
    priceFeature(),
    rateAlertsFeature(),
    merchantFeature(),
    adminFeature(),
  ];
}
