import type { Api } from "grammy";
import type { PayoutApi } from "#src/api/index.js";
import { PriceService, satsValue } from "#src/bot/rules/price.js";
import { intlLocale, type LanguageCode, type Translator } from "#src/i18n/index.js";
import type { Logger } from "#src/log/logger.js";
import { COUNTRIES } from "#src/money/index.js";
import type { RateAlert, Store } from "#src/store/index.js";
import { ALERT_SATS, firedAlert } from "./render.ts";

interface RateAlertCheckerDeps {
  store: Pick<Store, "rateAlerts" | "caches">;
  api: Pick<PayoutApi, "getPrice">;
  telegram: Api;
  translator: Translator;
  languageOf: (userId: number) => Promise<LanguageCode>;
  logger: Logger;
  /** How often the rates are checked (default 60 s). */
  everyMs?: number;
}

export interface RateAlertChecker {
  /** One check of every corridor with armed alerts; resolves to the number of notifications sent. */
  check(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

const RATE_ALERT_EVERY_MS = 60_000;

/**
 * The scheduled rate-alert check. Each tick, one process (the `ratealerts:tick` claim) fetches one fresh price per
 * corridor that has armed alerts — shared by all of that corridor's alerts — reads the crossed ones from the sorted
 * set by threshold, and claims each before notifying: a claim removes the alert in one script, so a check run
 * twice, or by two processes at once, notifies once. A claimed alert whose message Telegram refused (the user
 * blocked the bot) is gone too: the alert is one-shot by design, and its owner can set it again.
 */
export function createRateAlertChecker(deps: RateAlertCheckerDeps): RateAlertChecker {
  const everyMs = deps.everyMs ?? RATE_ALERT_EVERY_MS;
  const prices = new PriceService(deps.api, deps.store.caches);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function notify(alert: RateAlert, value: number): Promise<boolean> {
    const language = await deps.languageOf(alert.userId);
    const { text, keyboard } = firedAlert(deps.translator.t(language), intlLocale(language), alert, value);
    try {
      await deps.telegram.sendMessage(alert.userId, text, { parse_mode: "HTML", reply_markup: keyboard });
      return true;
    } catch (error) {
      deps.logger.warn({ err: error, userId: alert.userId, alert: alert.id }, "rate alert not delivered");
      return false;
    }
  }

  async function check(): Promise<number> {
    let sent = 0;
    for (const country of COUNTRIES) {
      if (!(await deps.store.rateAlerts.armed(country))) continue;
      let value: number;
      try {
        value = satsValue(await prices.fresh(country), ALERT_SATS);
      } catch (error) {
        deps.logger.warn({ err: error, country }, "rate alert check: no price");
        continue;
      }
      for (const id of await deps.store.rateAlerts.crossed(country, value)) {
        const alert = await deps.store.rateAlerts.claim(id);
        if (alert && (await notify(alert, value))) sent += 1;
      }
    }
    return sent;
  }

  async function tick(): Promise<void> {
    // A little under the interval, so the next tick anywhere may claim it again.
    if (!(await deps.store.rateAlerts.claimTick(Math.max(1, everyMs - 250)))) return;
    await check();
  }

  return {
    check,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = tick()
          .catch((error: unknown) => deps.logger.error({ err: error }, "rate alert check failed"))
          .finally(() => {
            running = undefined;
          });
      }, everyMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
