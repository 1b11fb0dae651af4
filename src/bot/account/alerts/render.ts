import { InlineKeyboard } from "grammy";
import { escapeHtml, type TFunction } from "#src/i18n/index.js";
import { COUNTRIES, COUNTRY_FLAGS, type Country, currencyOfCountry, formatMoney } from "#src/money/index.js";
import { MAX_RATE_ALERTS, type RateAlert } from "#src/store/index.js";
import { rateAlertDeleteData, rateAlertNewData, rateAlertSendData } from "./callback-data.ts";

/** Alerts compare what this many sats buy: a round amount people picture ("100,000 sats buy ₦…"). */
export const ALERT_SATS = 100_000;

export const alertMoney = (minor: number, country: Country, locale: string): string =>
  escapeHtml(formatMoney(minor, currencyOfCountry(country), locale));

export const alertSats = (locale: string): string => escapeHtml(formatMoney(ALERT_SATS, "BTCSAT", locale));

/** /alerts (and /alert without a corridor): my alerts with 🗑 buttons, and a button per corridor for a new one. */
export function alertsScreen(
  t: TFunction,
  locale: string,
  alerts: readonly RateAlert[],
): { text: string; keyboard: InlineKeyboard } {
  const lines = alerts.map((alert, index) =>
    t("ratealert:list.line", {
      n: index + 1,
      flag: COUNTRY_FLAGS[alert.country],
      sats: alertSats(locale),
      amount: alertMoney(alert.threshold, alert.country, locale),
    }),
  );
  const text = [
    t("ratealert:list.title"),
    "",
    ...(lines.length > 0 ? lines : [t("ratealert:list.empty")]),
    "",
    alerts.length >= MAX_RATE_ALERTS
      ? t("ratealert:list.full", { max: MAX_RATE_ALERTS })
      : t("ratealert:list.pick", { sats: alertSats(locale) }),
  ].join("\n");
  const keyboard = InlineKeyboard.from([
    ...alerts.map((alert, index) => [
      InlineKeyboard.text(
        t("ratealert:list.remove_button", { n: index + 1, flag: COUNTRY_FLAGS[alert.country] }),
        rateAlertDeleteData.pack({ id: alert.id }),
      ),
    ]),
    ...(alerts.length >= MAX_RATE_ALERTS
      ? []
      : [
          COUNTRIES.map((country) =>
            InlineKeyboard.text(`${COUNTRY_FLAGS[country]} ${country}`, rateAlertNewData.pack({ country })),
          ),
        ]),
  ]);
  return { text, keyboard };
}

/** The one message a crossed alert sends, with "Send now" into the payout flow of its corridor. */
export function firedAlert(
  t: TFunction,
  locale: string,
  alert: RateAlert,
  value: number,
): { text: string; keyboard: InlineKeyboard } {
  const text = t("ratealert:fired", {
    flag: COUNTRY_FLAGS[alert.country],
    country: t(`price:country.${alert.country}`),
    sats: alertSats(locale),
    amount: alertMoney(value, alert.country, locale),
    threshold: alertMoney(alert.threshold, alert.country, locale),
  });
  const keyboard = InlineKeyboard.from([
    [InlineKeyboard.text(t("ratealert:send_button"), rateAlertSendData.pack({ country: alert.country }))],
    [InlineKeyboard.text(t("ratealert:again_button"), rateAlertNewData.pack({ country: alert.country }))],
  ]);
  return { text, keyboard };
}
