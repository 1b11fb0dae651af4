export {
  byIso,
  COUNTRIES,
  COUNTRY_FLAGS,
  type Country,
  CURRENCIES,
  CURRENCY_CODES,
  type CurrencyCode,
  currencyOfCountry,
  type FiatCurrencyCode,
  isCountry,
  isCurrencyCode,
  isMinorAmount,
  isoOf,
} from "./currencies.ts";
export {
  COUNTRY_TIME_ZONES,
  formatClock,
  formatDateTime,
  formatOpsTime,
  localDay,
  zoneName,
} from "./dates.ts";
export { fromMajorString, toMajorString } from "./decimal.ts";
export {
  decimalSeparator,
  formatAmountNumber,
  formatBtc,
  formatMoney,
  formatSats,
  resolveNumberLocale,
} from "./format.ts";
export {
  type ParseAmountOptions,
  type ParseAmountResult,
  type ParseFailureReason,
  parseAmount,
} from "./parse.ts";
