import { describe, expect, it } from "vitest";
import { clockLabel } from "#src/bot/account/clock.js";
import { createTranslator, escapeHtml, intlLocale, LANGUAGES } from "#src/i18n/index.js";
import { silentLogger } from "#src/log/logger.js";
import {
  COUNTRIES,
  type Country,
  formatClock,
  formatDateTime,
  formatOpsTime,
  zoneName,
} from "#src/money/index.js";
import { formatExpiryTime } from "#src/orders/index.js";

/**
 * Every time the bot shows carries the zone's name as people in that country say it, in all ten languages. Intl's
 * own short names outside English are offsets ("WAT+3" in Yorùbá, "GMT +3" in Kiswahili, "UTC+2" in French) and
 * Akan's 12-hour clock adds "AN"/"ANW": none of that may reach a user.
 */
const ZONES: Record<Country, string> = { NG: "WAT", KE: "EAT", ZA: "SAST", GH: "GMT" };
const OFFSET_NAMES = /WAT\+|GMT ?\+|UTC ?\+|ANW|\d AN\b/;

/** 1 Oct 2025, 14:05 UTC: an afternoon, so a 12-hour clock would show itself. */
const AT = Date.UTC(2025, 9, 1, 14, 5);
const LOCAL_TIME: Record<Country, string> = { NG: "15:05", KE: "17:05", ZA: "16:05", GH: "14:05" };

describe("zone names in every language", () => {
  it("names WAT, EAT, SAST and GMT on quote deadlines, invoices, clock choices, receipts and ops times", async () => {
    const translator = await createTranslator({ logger: silentLogger() });
    const wrong: string[] = [];
    const check = (where: string, text: string, expected: string) => {
      if (OFFSET_NAMES.test(text) || !text.includes(expected))
        wrong.push(`${where}: ${JSON.stringify(text)}`);
    };
    for (const { code } of LANGUAGES) {
      const t = translator.t(code);
      const locale = intlLocale(code);
      for (const country of COUNTRIES) {
        const shown = `${LOCAL_TIME[country]} ${ZONES[country]}`;
        const where = `${code} ${country}`;
        const time = formatExpiryTime({ expiresAt: new Date(AT).toISOString(), corridor: country }, locale);
        check(`${where} quote deadline`, t("payout:quote.expires", { countdown: "4:59", time }), shown);
        const caption = t("payout:invoice.caption", {
          amount: "21,000 sats",
          code: "K7",
          countdown: "4:59",
          time,
        });
        check(`${where} invoice caption`, caption, shown);
        check(`${where} status card`, t("status:detail.awaiting_payment", { time }), shown);
        check(`${where} clock choice`, clockLabel(country, { now: AT, locale, current: "NG" }), shown);
        check(`${where} clock saved`, t("clock:saved", { zone: formatClock(AT, locale, country) }), shown);
        check(
          `${where} history note`,
          t("clock:history_note", { zone: escapeHtml(zoneName(country)) }),
          ZONES[country],
        );
        check(`${where} receipt and history`, formatDateTime(AT, locale, country), shown);
      }
      check(`${code} ops time`, formatOpsTime(AT, locale), `${LOCAL_TIME.NG} WAT`);
    }
    expect(wrong).toEqual([]);
  });
});
