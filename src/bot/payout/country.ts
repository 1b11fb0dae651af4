import type { FlowIo } from "#src/bot/flow/flow-io.js";
import { maintenanceNotice, quotesPaused } from "#src/bot/rules/pauses.js";
import type { Minimums } from "#src/bot/rules/payout-minimums.js";
import { COUNTRY_FLAGS, type Country, currencyOfCountry, formatMoney, isCountry } from "#src/money/index.js";
import type { PauseScope } from "#src/store/index.js";
import { payoutCountryData } from "./callback-data.ts";
import { ghanaRecipient } from "./corridors/gh.ts";
import { kenyaRecipient } from "./corridors/ke.ts";
import { nigeriaRecipient } from "./corridors/ng.ts";
import { southAfricaRecipient } from "./corridors/za.ts";
import { countryKeyboard } from "./keyboards.ts";
import { chooseKnown } from "./known.ts";
import { askButton, type Draft, withNotice } from "./prompts.ts";
import { PAYOUT_COUNTRIES } from "./quote-orders.ts";
import { type Voice, voiced } from "./voice.ts";

/** The minimum of a country in its currency, or "the equivalent of 2 USD" when the price is unknown. */
function minimumText(io: FlowIo, country: Country, minimums: Minimums): string {
  const minimum = minimums[country];
  return minimum === undefined
    ? io.t("payout:country.min_usd")
    : formatMoney(minimum, currencyOfCountry(country), io.locale);
}

/**
 * Step 1: where the money goes, each country with its methods and its minimum shown before typing. Countries ops
 * have paused are marked; choosing one (or one paused since the screen was drawn) shows why and when to try again,
 * and the picker stays. A requester is asked where their own money should arrive.
 */
export async function chooseCountry(
  io: FlowIo,
  minimums: Minimums,
  notice?: string,
  paused: readonly PauseScope[] = [],
  voice: Voice = "sender",
): Promise<Country> {
  const { t } = io;
  const pausedNow = new Set<PauseScope>(paused);
  let shownNotice = notice;
  const render = () => {
    const lines = PAYOUT_COUNTRIES.map((country) => {
      const line = t("payout:country.line", {
        flag: COUNTRY_FLAGS[country],
        name: t(`payout:country.names.${country}`),
        methods: t(`payout:country.methods.${country}`),
        min: minimumText(io, country, minimums),
      });
      return pausedNow.has(country) ? `${line} · ${t("payout:country.paused")}` : line;
    });
    return withNotice(shownNotice, [t(voiced(voice, "country.title")), "", ...lines].join("\n"));
  };
  await io.show(render, () => countryKeyboard(t));
  for (;;) {
    const { data } = await askButton(io);
    const country = payoutCountryData.parse(data)?.country;
    if (!isCountry(country)) continue;
    // Read now, not from the screen: ops may have paused or resumed since. If Redis cannot say, the quote step asks.
    const pause = await io.call("country-pause", (deps) => quotesPaused(deps, country));
    if (!pause.ok || !pause.value.paused) return country;
    pausedNow.add(country);
    shownNotice = maintenanceNotice(t, pause.value);
    await io.show(render, () => countryKeyboard(t));
  }
}

/** Each corridor's recipient steps (corridors/<country>.ts): the one payout file a new corridor adds. */
const RECIPIENT_STEPS: Readonly<Record<Country, (io: FlowIo, voice: Voice) => Promise<Draft>>> = {
  NG: nigeriaRecipient,
  KE: kenyaRecipient,
  ZA: southAfricaRecipient,
  GH: ghanaRecipient,
};

/**
 * Step 2: the beneficiary, by country. A sender is first offered the people they sent to there before; a requester
 * gives their own details.
 */
export async function chooseRecipient(io: FlowIo, country: Country, voice: Voice): Promise<Draft> {
  const known = voice === "sender" ? await chooseKnown(io, country) : undefined;
  if (known) return known;
  return RECIPIENT_STEPS[country](io, voice);
}
