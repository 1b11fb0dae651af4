import { rateAlertsFeature } from "./account/alerts/feature.ts";
import { historyFeature } from "./account/history.ts";
import { languageFeature } from "./account/language.ts";
import { myIdFeature } from "./account/myid.ts";
import { priceFeature } from "./account/price.ts";
import { receiptFeature } from "./account/receipt.ts";
import { recipientsFeature } from "./account/recipients.ts";
import { repeatsFeature } from "./account/repeats/feature.ts";
import { statusFeature } from "./account/status.ts";
import { welcomeFeature } from "./account/welcome.ts";
import { buyFeature } from "./buy/feature.ts";
import type { BotDeps } from "./context.ts";
import type { Feature } from "./flow/feature.ts";
import { merchantFeature } from "./merchant/feature.ts";
import { adminFeature, maintenanceFeature } from "./ops/feature.ts";
import { refundFeature } from "./ops/refund/feature.ts";
import { payoutFeature } from "./payout/feature.ts";
import { requestsFeature } from "./payout/requests/feature.ts";

export type { Feature } from "./flow/feature.ts";

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
    myIdFeature(), // anyone, in any chat: the ids ADMIN_USER_IDS and ADMIN_CHAT_ID take
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
