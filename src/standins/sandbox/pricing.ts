import { type Currency, ceilDiv, FIATS, type Fiat, type Speed } from "./units.ts";

/**
 * Deterministic price model. Rates are configured as numbers (they are rates, not amounts) and turned
 * into scaled integers once; every amount is then computed in bigint with explicit rounding.
 */

export const CORRIDORS = [
  "BTC-NGN",
  "BTC-KES",
  "BTC-ZAR",
  "BTC-GHS",
  "NGN-BTC",
  "NGN-KES",
  "NGN-ZAR",
  "NGN-GHS",
] as const;
type Corridor = (typeof CORRIDORS)[number];

export interface PriceModel {
  /** USD per BTC (cents precision). */
  btcUsd: number;
  /** Local currency per USD (micro precision). */
  usdRates: Record<Fiat, number>;
  /** Service fee per corridor in basis points, included in amountInSourceCurrency. */
  feeBps: Record<Corridor, number>;
  /** Spread in basis points, taken from the conversion rate (exchangeRate itself is mid-market). */
  spreadBps: Record<Corridor, number>;
  /** Expected on-chain network fee in sats by speed (estimatedRoutingFee of on-chain quotes). */
  onchainFeeSats: Record<Speed, number>;
}

export interface PriceModelInput {
  btcUsd?: number;
  usdRates?: Partial<Record<Fiat, number>>;
  feeBps?: Partial<Record<Corridor, number>>;
  spreadBps?: Partial<Record<Corridor, number>>;
  onchainFeeSats?: Partial<Record<Speed, number>>;
}

/** Round numbers so that test expectations can be worked out by hand (see docs/sandbox.md). */
export const DEFAULT_PRICES: PriceModel = {
  btcUsd: 100_000,
  usdRates: { NGN: 1500, KES: 130, ZAR: 18, GHS: 12 },
  feeBps: {
    "BTC-NGN": 100,
    "BTC-KES": 50,
    "BTC-ZAR": 50,
    "BTC-GHS": 50,
    "NGN-BTC": 55,
    "NGN-KES": 59,
    "NGN-ZAR": 57,
    "NGN-GHS": 57,
  },
  spreadBps: {
    "BTC-NGN": 30,
    "BTC-KES": 0,
    "BTC-ZAR": 90,
    "BTC-GHS": 0,
    "NGN-BTC": 0,
    "NGN-KES": 0,
    "NGN-ZAR": 0,
    "NGN-GHS": 0,
  },
  onchainFeeSats: { slow: 150, medium: 343, fast: 600 },
};

export function mergePrices(base: PriceModel, input: PriceModelInput = {}): PriceModel {
  const merged: PriceModel = {
    btcUsd: input.btcUsd ?? base.btcUsd,
    usdRates: { ...base.usdRates, ...input.usdRates },
    feeBps: { ...base.feeBps, ...input.feeBps },
    spreadBps: { ...base.spreadBps, ...input.spreadBps },
    onchainFeeSats: { ...base.onchainFeeSats, ...input.onchainFeeSats },
  };
  const problems: string[] = [];
  if (!(merged.btcUsd > 0) || !Number.isFinite(merged.btcUsd)) problems.push("btcUsd must be > 0");
  for (const fiat of FIATS) {
    const rate = merged.usdRates[fiat];
    if (!(rate > 0) || !Number.isFinite(rate)) problems.push(`usdRates.${fiat} must be > 0`);
  }
  for (const corridor of CORRIDORS) {
    for (const [name, table] of [
      ["feeBps", merged.feeBps],
      ["spreadBps", merged.spreadBps],
    ] as const) {
      const value = table[corridor];
      if (!Number.isInteger(value) || value < 0 || value > 5000)
        problems.push(`${name}.${corridor} must be an integer 0..5000`);
    }
  }
  for (const [speed, fee] of Object.entries(merged.onchainFeeSats)) {
    if (!Number.isInteger(fee) || fee < 0) problems.push(`onchainFeeSats.${speed} must be an integer >= 0`);
  }
  if (problems.length > 0) throw new RangeError(`Invalid price model: ${problems.join("; ")}`);
  return merged;
}

/** Minor units of a currency per 1 BTC, as an exact fraction. */
interface Fraction {
  num: bigint;
  den: bigint;
}

interface QuoteMathInput {
  source: Currency;
  target: Currency;
  corridor: Corridor;
  amount: bigint;
  /** Which side `amount` is denominated in (paymentCurrency). */
  amountIn: "source" | "target";
  /** On-chain network fee, in target units (sats); 0 otherwise. */
  networkFee: bigint;
  /** Payment links with addFeeToTotalCost: the fee is added on top of a source amount. */
  feeOnTop?: boolean;
}

interface QuoteMath {
  amountInSource: bigint;
  feesInSource: bigint;
  amountInTarget: bigint;
  feesInTarget: bigint;
}

export class Pricing {
  private btcUsdCents: bigint;
  private usdMicro: Record<Fiat, bigint>;

  constructor(readonly model: PriceModel) {
    this.btcUsdCents = BigInt(Math.round(model.btcUsd * 100));
    this.usdMicro = Object.fromEntries(
      FIATS.map((fiat) => [fiat, BigInt(Math.round(model.usdRates[fiat] * 1_000_000))]),
    ) as Record<Fiat, bigint>;
  }

  private perBtc(currency: Currency): Fraction {
    if (currency === "BTC") return { num: 100_000_000n, den: 1n };
    // minor per BTC = USD-cents per BTC × local per USD (micro) / 1e6
    return { num: this.btcUsdCents * this.usdMicro[currency], den: 1_000_000n };
  }

  /** Mid-market conversion of minor units, rounded down (what a recipient would get). */
  convertDown(amount: bigint, from: Currency, to: Currency): bigint {
    const { num, den } = this.rate(from, to);
    return (amount * num) / den;
  }

  /** Target minor units per source minor unit. */
  private rate(from: Currency, to: Currency): Fraction {
    const f = this.perBtc(from);
    const t = this.perBtc(to);
    return { num: t.num * f.den, den: t.den * f.num };
  }

  /** Price of 1 BTC in the target currency's major unit (1 for BTC). */
  exchangeRate(target: Currency): number {
    if (target === "BTC") return 1;
    const { num, den } = this.perBtc(target);
    return Number(num) / Number(den) / 100;
  }

  /** Price of 1 USD in the target currency's major unit. */
  usdToTarget(target: Currency): number {
    if (target === "BTC") return 1 / this.model.btcUsd;
    return this.model.usdRates[target];
  }

  /** The minimum payout of a fiat in its minor units for `usdCents` worth of USD (rounded up). */
  usdCentsIn(fiat: Fiat, usdCents: bigint): bigint {
    return ceilDiv(usdCents * this.usdMicro[fiat], 1_000_000n);
  }

  quote(input: QuoteMathInput): QuoteMath {
    const fee = BigInt(this.model.feeBps[input.corridor]);
    const spread = BigInt(this.model.spreadBps[input.corridor]);
    const { num, den } = this.rate(input.source, input.target);
    // Effective rate after spread: num·(10000−spread) / (den·10000).
    const effNum = num * (10_000n - spread);
    const effDen = den * 10_000n;
    if (input.amountIn === "target") {
      const grossTarget = input.amount + input.networkFee;
      const base = ceilDiv(grossTarget * effDen, effNum);
      const feesInSource = ceilDiv(base * fee, 10_000n);
      return {
        amountInSource: base + feesInSource,
        feesInSource,
        amountInTarget: input.amount,
        feesInTarget: (feesInSource * num) / den,
      };
    }
    const feesInSource = input.feeOnTop
      ? ceilDiv(input.amount * fee, 10_000n)
      : ceilDiv(input.amount * fee, 10_000n + fee);
    const base = input.feeOnTop ? input.amount : input.amount - feesInSource;
    const grossTarget = (base * effNum) / effDen;
    return {
      amountInSource: base + feesInSource,
      feesInSource,
      amountInTarget: grossTarget - input.networkFee,
      feesInTarget: (feesInSource * num) / den,
    };
  }

  /** GET /price data for one fiat currency. */
  priceView(fiat: Fiat, nowMs: number) {
    const btcPrice = this.exchangeRate(fiat);
    return {
      currency: fiat,
      timestamp: Math.floor(nowMs / 1000),
      btcPriceInUnitCurrency: btcPrice,
      unitPricePerSat: { amount: btcPrice / 100_000_000, currencyUnit: `${fiat}SAT` },
      unitPricePerUsd: { amount: this.model.usdRates[fiat], currencyUnit: `${fiat}USD` },
    };
  }
}

export function corridorOf(source: Currency, target: Currency): Corridor | undefined {
  const key = `${source}-${target}`;
  return (CORRIDORS as readonly string[]).includes(key) ? (key as Corridor) : undefined;
}
