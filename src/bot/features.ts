import type { ExtraRoutes } from "#src/http/server.js";
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
import type { EventSinks, Feature, FeatureRuntime, Job } from "./flow/feature.ts";
import { merchantFeature } from "./merchant/feature.ts";
import { adminFeature, maintenanceFeature } from "./ops/feature.ts";
import { payoutFeature } from "./payout/feature.ts";
import { requestsFeature } from "./payout/requests/feature.ts";
import { createDeliverMissing } from "./recovery.ts";
import { refundFeature } from "./refund/feature.ts";
import { raiseAlert } from "./rules/raise-alert.ts";

export type { Feature, Job } from "./flow/feature.ts";

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

/** What the process gives the features to build their jobs and sinks from (the registry adds the rest). */
export type FeatureHost = Pick<
  FeatureRuntime,
  "deps" | "telegram" | "languageOf" | "metrics" | "schedule" | "botToken"
>;

/** The features' jobs and sinks, collected once: what the process wiring starts, stops and feeds events to. */
export interface FeatureWiring {
  /** Queue an ops alert for the admin group. */
  raise: FeatureRuntime["raise"];
  /** Every background job of the bot, in one list, with its schedule. */
  jobs: Job[];
  onAlert: NonNullable<EventSinks["alert"]>;
  onPaymentLinkEvent(event: Parameters<NonNullable<EventSinks["paymentLink"]>>[0]): Promise<void>;
  approvalChanged: NonNullable<EventSinks["approvalChanged"]>;
  /** Every feature's web routes, tried in the features' order. */
  routes: ExtraRoutes;
  /** The reconciler's tick: the jobs scheduled "after each reconcile tick". */
  afterTick(): Promise<void>;
  /** The reconciler's recovery of status cards a lost delivery never sent. */
  deliverMissing: ReturnType<typeof createDeliverMissing>;
}

/** Build every feature's jobs and sinks (once per process). */
export function wireFeatures(features: Feature[], host: FeatureHost): FeatureWiring {
  const sinks: EventSinks[] = [];
  const runtime: FeatureRuntime = {
    ...host,
    raise: (alert) => raiseAlert(host.deps, alert),
    approvalChanged: async (record) => {
      for (const sink of sinks) await sink.approvalChanged?.(record);
    },
    opsChecks: () => sinks.flatMap((sink) => (sink.opsCheck ? [sink.opsCheck] : [])),
  };
  const jobs: Job[] = [];
  const routes: ExtraRoutes[] = [];
  for (const feature of features) {
    const services = feature.services?.(runtime);
    jobs.push(...(services?.jobs ?? []));
    if (services?.sinks) sinks.push(services.sinks);
    if (services?.routes) routes.push(services.routes);
  }
  const afterTick = jobs.filter((job) => job.afterTick);
  return {
    raise: runtime.raise,
    jobs,
    onAlert: async (alert) => {
      for (const sink of sinks) await sink.alert?.(alert);
    },
    onPaymentLinkEvent: async (event) => {
      for (const sink of sinks) if (await sink.paymentLink?.(event)) return;
    },
    approvalChanged: runtime.approvalChanged,
    routes: async (req, res, path) => {
      for (const route of routes) if (await route(req, res, path)) return true;
      return false;
    },
    afterTick: async () => {
      for (const job of afterTick) await job.run();
    },
    deliverMissing: createDeliverMissing({ ...host.deps, telegram: host.telegram }),
  };
}
