/**
 * Everything that differs between the payout corridors, in one place: adding a country is a new entry here, its
 * locale keys, its recipient steps (src/bot/payout/corridors/) and the sandbox's data. The rest of the bot derives
 * its lists from this table. It imports nothing of ours, so src/money can build its currencies from it.
 */

/** How the smallest payout is set: a fixed amount (spec 8) or an amount of US dollars at today's rate. */
type Minimum = { readonly fixedMinor: number } | { readonly usdCents: number };

/** Recipient methods the payout flow knows, by the beneficiary shape POST /quote gets. */
type PayoutMethod = "ngn_bank" | "kes_phone" | "kes_bill" | "kes_till" | "zar_bank" | "ghs_mtn";

const TABLE = {
  NG: {
    flag: "🇳🇬",
    currency: { code: "NGNKOBO", iso: "NGN", minorDigits: 2, symbol: "₦", symbolSpaced: false },
    /** Lower-case spellings users type for the currency; single letters count only when no letter touches them. */
    spellings: ["₦", "ngn", "naira", "n"],
    timeZone: "Africa/Lagos",
    /** The zone as the people who live in it name it, the same in every language (Intl's short names are offsets). */
    zoneName: "WAT",
    minimum: { fixedMinor: 200_000 }, // ₦2,000
    /** Amounts above this are taken for a typo, not quoted. */
    maximumMinor: 2_000_000_000, // ₦20,000,000
    methods: ["ngn_bank"],
    /** Languages spoken mainly here: a first guess of a user's clock. */
    languages: [],
    /**
     * The smallest amount the rail pays, in minor units: M-Pesa and Airtel Money pay whole shillings, so a Kenyan
     * amount with cents would charge the payer for cents that never arrive; the other rails pay the minor unit.
     */
    payableStepMinor: 1,
    /** A typical name there: the example a refused name is shown (a Kenyan is not shown a Nigerian name). */
    nameExample: "Ada Obi",
    /** Whether the bank confirms the account holder's name before the quote (NIP name enquiry). */
    nameVerified: true,
    /**
     * Whether a payer in Nigeria may fund a payout here by naira bank transfer (notes §6, "NGN-funded payouts"), and
     * its smallest target amount in minor units on top of the corridor's own (0: the corridor's alone).
     */
    nairaFunding: null,
  },
  KE: {
    flag: "🇰🇪",
    currency: { code: "KESCENT", iso: "KES", minorDigits: 2, symbol: "KSh", symbolSpaced: true },
    spellings: ["ksh", "kshs", "kes"],
    timeZone: "Africa/Nairobi",
    zoneName: "EAT",
    minimum: { usdCents: 200 },
    maximumMinor: 25_000_000, // KSh 250,000: the M-Pesa per-transaction ceiling
    methods: ["kes_phone", "kes_bill", "kes_till"],
    languages: ["sw"],
    payableStepMinor: 100,
    nameExample: "Wanjiku Kamau",
    nameVerified: false,
    nairaFunding: { minimumMinor: 0 },
  },
  ZA: {
    flag: "🇿🇦",
    currency: { code: "ZARCENT", iso: "ZAR", minorDigits: 2, symbol: "R", symbolSpaced: true },
    spellings: ["r", "zar", "rand"],
    timeZone: "Africa/Johannesburg",
    zoneName: "SAST",
    minimum: { usdCents: 200 },
    maximumMinor: 100_000_000, // R 1,000,000
    methods: ["zar_bank"],
    languages: ["zu"],
    payableStepMinor: 1,
    nameExample: "Thandi Nkosi",
    nameVerified: false,
    nairaFunding: { minimumMinor: 5_000 } /* R 50, ngn-zar.mdx FAQ */,
  },
  GH: {
    flag: "🇬🇭",
    currency: { code: "GHSPESEWA", iso: "GHS", minorDigits: 2, symbol: "GH₵", symbolSpaced: true },
    spellings: ["gh₵", "gh¢", "₵", "ghs", "ghc", "cedi", "cedis"],
    timeZone: "Africa/Accra",
    zoneName: "GMT",
    minimum: { usdCents: 200 },
    maximumMinor: 5_000_000, // GH₵ 50,000
    methods: ["ghs_mtn"],
    languages: ["ak"],
    payableStepMinor: 1,
    nameExample: "Kwame Mensah",
    nameVerified: false,
    nairaFunding: { minimumMinor: 0 },
  },
} as const satisfies Record<
  string,
  {
    flag: string;
    currency: { code: string; iso: string; minorDigits: number; symbol: string; symbolSpaced: boolean };
    spellings: readonly string[];
    timeZone: string;
    zoneName: string;
    minimum: Minimum;
    maximumMinor: number;
    methods: readonly PayoutMethod[];
    languages: readonly string[];
    payableStepMinor: number;
    nameExample: string;
    nameVerified: boolean;
    nairaFunding: { minimumMinor: number } | null;
  }
>;

export type Country = keyof typeof TABLE;
type Corridor = (typeof TABLE)[Country];
export type CorridorCurrencyCode = Corridor["currency"]["code"];
export type CorridorIsoCode = Corridor["currency"]["iso"];
export type CorridorTimeZone = Corridor["timeZone"];

export const CORRIDORS: Readonly<Record<Country, Corridor>> = TABLE;

/** The corridors in the order pickers show them. */
export const COUNTRIES = Object.keys(TABLE) as [Country, ...Country[]];

export const CORRIDOR_CURRENCY_CODES = COUNTRIES.map((country) => TABLE[country].currency.code) as [
  CorridorCurrencyCode,
  ...CorridorCurrencyCode[],
];

export function isCountry(value: unknown): value is Country {
  return typeof value === "string" && Object.hasOwn(TABLE, value);
}

type Beneficiary = Readonly<Record<string, unknown>>;

/** How each method's beneficiary object looks (the API shape POST /quote gets; saved recipients keep it as is). */
const METHOD_SHAPES: Readonly<Record<PayoutMethod, (beneficiary: Beneficiary) => boolean>> = {
  ngn_bank: (beneficiary) => typeof beneficiary.bankCode === "string",
  zar_bank: (beneficiary) => typeof beneficiary.name === "string" && typeof beneficiary.bankName === "string",
  kes_phone: (beneficiary) => beneficiary.identifierType === "paytophone",
  kes_bill: (beneficiary) => beneficiary.identifierType === "paytobill",
  kes_till: (beneficiary) => beneficiary.identifierType === "paytotill",
  ghs_mtn: (beneficiary) => beneficiary.identifierType === "MTN",
};

/** Which corridor and method a beneficiary object belongs to; undefined for a shape no corridor pays. */
export function methodOf(beneficiary: Beneficiary): { corridor: Country; method: PayoutMethod } | undefined {
  for (const corridor of COUNTRIES) {
    const method = TABLE[corridor].methods.find((candidate: PayoutMethod) =>
      METHOD_SHAPES[candidate](beneficiary),
    );
    if (method) return { corridor, method };
  }
  return undefined;
}
