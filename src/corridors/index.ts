export {
  CORRIDOR_CURRENCY_CODES,
  CORRIDORS,
  COUNTRIES,
  type Corridor,
  type CorridorCurrencyCode,
  type CorridorIsoCode,
  type CorridorTimeZone,
  type Country,
  isCountry,
  methodOf,
  type PayoutMethod,
} from "./table.ts";
