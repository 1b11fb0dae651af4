import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createPayoutApi,
  type PayoutApi,
  paymentLinkDetailsResponseSchema,
  paymentLinkSchema,
  quoteSchema,
  transactionDetailListSchema,
  transactionSchema,
  userProfileSchema,
  walletListSchema,
} from "#src/api/index.js";
import { type FakeApi, json, startFakeApi } from "./fake-api.ts";
import * as spec from "./fixtures/spec-shapes.ts";

/**
 * What the client must accept from the real service (api-behaviour-notes §2, §11): every amount and fee field as
 * an integer or a numeric string (blinkbitcoin/mavapay-client types them as strings, the service now sends
 * integers), and the older envelope `status:"success"`.
 */

type Path = readonly (string | number)[];

function setAt(value: unknown, path: Path, leaf: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1) as string | number] = leaf;
  return copy;
}

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

interface Field {
  name: string;
  parse: (input: unknown) => unknown;
  sample: unknown;
  /** Where the amount sits in the input. */
  input: Path;
  /** Where it sits in the parsed output (defaults to `input`). */
  output?: Path;
}

const quote = (name: string): Field => ({
  name: `quote.${name}`,
  parse: (input) => quoteSchema.parse(input),
  sample: spec.quoteKesLightning,
  input: [name],
});
const tx = (path: Path, sample: unknown = spec.transactionNgn): Field => ({
  name: `transaction.${path.join(".")}`,
  parse: (input) => transactionSchema.parse(input),
  sample,
  input: path,
});
const detailQuote = (name: string): Field => ({
  name: `transaction detail order.quote.${name}`,
  parse: (input) => transactionDetailListSchema.parse(input),
  sample: spec.transactionDetail,
  input: ["metadata", "order", "quote", name],
  output: [0, "metadata", "order", "quote", name],
});
const linkBlock = (block: "BANKTRANSFER" | "LIGHTNING", name: string): Field => ({
  name: `paymentlink details ${block}.${name}`,
  parse: (input) => paymentLinkDetailsResponseSchema.parse(input),
  sample: {
    paymentLinkDetails: {
      ...spec.paymentLinkDetails,
      LIGHTNING: {
        invoice: "lntbs133320n1...",
        amount: 13332,
        targetAmount: 12917,
        expiresAt: "2026-11-24T09:00:00Z",
      },
    },
  },
  input: ["paymentLinkDetails", block, name],
  output: [block, name],
});

const FIELDS: Field[] = [
  quote("amountInSourceCurrency"),
  quote("amountInTargetCurrency"),
  quote("transactionFeesInSourceCurrency"),
  quote("transactionFeesInTargetCurrency"),
  quote("totalAmountInSourceCurrency"),
  quote("customerInternalFee"),
  { ...quote("estimatedRoutingFee"), sample: { ...spec.quoteKesLightning, estimatedRoutingFee: 343 } },
  tx(["amount"]),
  tx(["fees"]),
  tx(["metadata", "customerInternalFee"]),
  tx(["amount"], spec.eventOnChainSent.data),
  tx(["fees"], spec.eventOnChainSent.data),
  tx(["btcUsdMetadata", "estimatedRoutingFee"], spec.eventOnChainSent.data),
  tx(["btcUsdMetadata", "customerInternalFee"], spec.eventOnChainSent.data),
  detailQuote("totalAmount"),
  detailQuote("equivalentAmount"),
  detailQuote("customerInternalFee"),
  {
    name: "wallet.balance",
    parse: (input) => walletListSchema.parse(input),
    sample: spec.wallets,
    input: [0, "balance"],
  },
  {
    name: "user walletDetails.balance",
    parse: (input) => userProfileSchema.parse(input),
    sample: spec.userProfile,
    input: ["account", "walletDetails", "balance"],
  },
  {
    name: "paymentlink.amount",
    parse: (input) => paymentLinkSchema.parse(input),
    sample: spec.paymentLinkWithOrders,
    input: ["amount"],
  },
  linkBlock("BANKTRANSFER", "amount"),
  linkBlock("BANKTRANSFER", "targetAmount"),
  linkBlock("LIGHTNING", "amount"),
  linkBlock("LIGHTNING", "targetAmount"),
];

describe("amount and fee fields: integer or numeric string", () => {
  it.each(FIELDS.map((field) => [field.name, field] as const))("%s", (_name, field) => {
    const output = field.output ?? field.input;
    expect(getAt(field.sample, field.input), "the sample has the field").not.toBeUndefined();
    for (const [given, expected] of [
      [123_456, 123_456],
      ["123456", 123_456],
      [" 123456 ", 123_456],
      ["123456.00", 123_456],
      [0, 0],
    ] as const) {
      expect(getAt(field.parse(setAt(field.sample, field.input, given)), output), JSON.stringify(given)).toBe(
        expected,
      );
    }
    // A fraction of a minor unit is never rounded away silently.
    expect(() => field.parse(setAt(field.sample, field.input, "123456.5"))).toThrow();
  });
});

describe("the older envelope and blinkbitcoin/mavapay-client's fixtures", () => {
  let fake: FakeApi;
  let api: PayoutApi;
  beforeAll(async () => {
    fake = await startFakeApi();
    api = createPayoutApi({ baseUrl: fake.baseUrl, apiKey: "k", retry: { baseDelayMs: 1, maxDelayMs: 5 } });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await api.close();
    await fake.close();
  });

  it('reads a quote answered with status "success", string amounts and createdAt/updatedAt', async () => {
    const legacy = {
      ...spec.quoteKesLightning,
      amountInTargetCurrency: "1460784",
      transactionFeesInTargetCurrency: "7340",
      createdAt: "2025-03-01T10:00:00.000Z",
      updatedAt: "2025-03-01T10:00:00.000Z",
    };
    fake.route("POST", "/quote", (_request, response) =>
      json(response, 200, { status: "success", data: legacy }),
    );
    const answer = await api.createQuote({
      amount: 100_000,
      sourceCurrency: "BTCSAT",
      targetCurrency: "KESCENT",
      paymentMethod: "LIGHTNING",
      paymentCurrency: "BTCSAT",
      autopayout: true,
    });
    expect(answer).toMatchObject({
      amountInTargetCurrency: 1_460_784,
      transactionFeesInTargetCurrency: 7340,
      createdAt: "2025-03-01T10:00:00.000Z",
      updatedAt: "2025-03-01T10:00:00.000Z",
    });
  });

  it('reads payment-link details with a LIGHTNING block under status "success"', async () => {
    fake.route("GET", "/paymentlink/details", (_request, response) =>
      json(response, 200, {
        status: "success",
        data: {
          paymentLinkDetails: {
            ...spec.paymentLinkDetails,
            paymentMethods: ["LIGHTNING"],
            BANKTRANSFER: null,
            LIGHTNING: {
              invoice: "lntbs1...",
              amount: "13332",
              targetAmount: 12917,
              expiresAt: 1764000000000,
            },
          },
        },
      }),
    );
    const details = await api.getPaymentLinkDetails("9d1c20db-c46b-4a15-8233-1bb999e38195", "LIGHTNING");
    expect(details.LIGHTNING).toMatchObject({ amount: 13_332, targetAmount: 12_917 });
    expect(details.BANKTRANSFER).toBeUndefined();
  });
});
