export {
  CORRIDOR_CURRENCY_CODES,
  CORRIDORS,
  COUNTRIES,
  type CorridorCurrencyCode,
  type CorridorIsoCode,
  type CorridorTimeZone,
  type Country,
  isCountry,
  methodOf,
} from "./table.ts";
