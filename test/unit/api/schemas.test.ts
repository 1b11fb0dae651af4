import { describe, expect, it } from "vitest";
import {
  bankAccountSchema,
  bankListSchema,
  beneficiarySchema,
  createdPaymentLinkSchema,
  minorAmount,
  nameEnquirySchema,
  orderListSchema,
  orderSchema,
  paymentLinkDetailsResponseSchema,
  paymentLinkRequestSchema,
  paymentLinkSchema,
  priceSchema,
  quoteRequestSchema,
  quoteSchema,
  simulatePayInRequestSchema,
  simulationResultSchema,
  transactionDetailListSchema,
  transactionSchema,
  userProfileSchema,
  walletListSchema,
  webhookRegistrationSchema,
  webhookRequestSchema,
  zaBankListSchema,
} from "#src/api/index.js";
import { notesData, notesFixture } from "./fixtures/load.ts";
import * as spec from "./fixtures/spec-shapes.ts";

describe("quote", () => {
  it("parses the real BTC→NGN Lightning sample", () => {
    const quote = quoteSchema.parse(notesData("quote-btc-ngn-lightning"));
    expect(quote).toMatchObject({
      sourceCurrency: "BTCSAT",
      targetCurrency: "NGNKOBO",
      amountInSourceCurrency: 6016,
      amountInTargetCurrency: 1000000,
      transactionFeesInSourceCurrency: 59,
      exchangeRate: 168375961.2972606,
      orderId: "56188-2561",
      invoice: "lntbs60160n1p5dmrdppp5...",
    });
    expect(quote.ngnBankAccountNumber).toBeUndefined();
  });

  it("parses the real NGN→BTC bank-transfer sample with its pay-in account", () => {
    const quote = quoteSchema.parse(notesData("quote-ngn-btc-banktransfer"));
    expect(quote).toMatchObject({
      paymentMethod: "BANKTRANSFER",
      invoice: "",
      bankName: "GLOBUS BANK",
      ngnBankAccountNumber: "3242273802",
      ngnBankCode: "000027",
      estimatedRoutingFee: 0,
      usdToTargetCurrencyRate: 0.00000917325600278523,
    });
  });

  it("coerces decimal-string target amounts to integers and keeps unknown fields", () => {
    const quote = quoteSchema.parse({ ...spec.quoteKesLightning, skipVirtualAccount: true });
    expect(quote.amountInTargetCurrency).toBe(1460784);
    expect(quote.transactionFeesInTargetCurrency).toBe(7340);
    expect(quote).toHaveProperty("skipVirtualAccount", true);
  });

  it("reads a missing or null invoice as empty and refuses fractional amounts", () => {
    const { invoice: _ignored, ...withoutInvoice } = spec.quoteKesLightning;
    expect(quoteSchema.parse(withoutInvoice).invoice).toBe("");
    expect(quoteSchema.parse({ ...spec.quoteKesLightning, invoice: null }).invoice).toBe("");
    expect(quoteSchema.safeParse({ ...spec.quoteKesLightning, amountInSourceCurrency: 100.5 }).success).toBe(
      false,
    );
    expect(quoteSchema.safeParse({ ...spec.quoteKesLightning, amountInTargetCurrency: "12.5" }).success).toBe(
      false,
    );
  });
});

describe("minor amounts", () => {
  it.each([
    [1000000, 1000000],
    ["1000000", 1000000],
    ["10000.00", 10000],
    [" 42 ", 42],
    ["-5", -5],
  ])("%j → %i", (input, output) => {
    expect(minorAmount.parse(input)).toBe(output);
  });

  it.each([[1.5], ["1.5"], ["abc"], [""], ["1e3"], [Number.MAX_SAFE_INTEGER + 2], [null]])(
    "rejects %j",
    (input) => {
      expect(minorAmount.safeParse(input).success).toBe(false);
    },
  );
});

describe("quote requests", () => {
  const ngnPayout = {
    amount: 1000000,
    sourceCurrency: "BTCSAT",
    targetCurrency: "NGNKOBO",
    paymentMethod: "LIGHTNING",
    paymentCurrency: "NGNKOBO",
    autopayout: true,
    customerReference: "tg-1",
    beneficiary: notesFixture<Record<string, unknown>>("beneficiaries").ngn,
  } as const;

  it("accepts every beneficiary format of the beneficiary guide in its spec form", () => {
    const beneficiaries = notesFixture<Record<string, unknown>>("beneficiaries");
    for (const name of ["ngn", "zar", "kesPaytophone", "kesPaytobill", "ghs", "lnAddress"])
      expect(beneficiarySchema.safeParse(beneficiaries[name]).success, name).toBe(true);
    expect(beneficiarySchema.safeParse({ onChainAddress: "bc1qexample" }).success).toBe(true);
    expect(beneficiarySchema.safeParse({ lnInvoice: "lntbs1..." }).success).toBe(true);
    expect(
      beneficiarySchema.safeParse({ identifierType: "paytotill", identifiers: { accountNumber: "000000" } })
        .success,
    ).toBe(true);
  });

  it("refuses beneficiaries we must not send", () => {
    const beneficiaries = notesFixture<Record<string, unknown>>("beneficiaries");
    // The client sends the spec's till form (identifiers.accountNumber), not the guide's tillNumber variant.
    expect(beneficiarySchema.safeParse(beneficiaries.kesPaytotillRealForm).success).toBe(false);
    // paytophone needs the network and an international number.
    expect(
      beneficiarySchema.safeParse({
        identifierType: "paytophone",
        identifiers: { phoneNumber: "+254790000000" },
      }).success,
    ).toBe(false);
    expect(
      beneficiarySchema.safeParse({
        identifierType: "paytophone",
        identifiers: { phoneNumber: "0790000000", network: "mpesa" },
      }).success,
    ).toBe(false);
    expect(
      beneficiarySchema.safeParse({ ...(beneficiaries.ngn as object), bankAccountNumber: "123" }).success,
    ).toBe(false);
  });

  it("validates the request and requires autopayout", () => {
    expect(quoteRequestSchema.parse(ngnPayout)).toEqual(ngnPayout);
    const { autopayout: _omitted, ...withoutAutopayout } = ngnPayout;
    expect(quoteRequestSchema.safeParse(withoutAutopayout).success).toBe(false);
    expect(quoteRequestSchema.safeParse({ ...ngnPayout, paymentCurrency: "KESCENT" }).success).toBe(false);
    expect(quoteRequestSchema.safeParse({ ...ngnPayout, amount: 10.5 }).success).toBe(false);
    expect(quoteRequestSchema.safeParse({ ...ngnPayout, amount: "1000000" }).success).toBe(false);
  });
});

describe("orders and transactions", () => {
  it("parses the list shape with nested quotes and transactions", () => {
    const [order] = orderListSchema.parse([spec.orderListItem]);
    expect(order?.amount).toBe("3000.00");
    expect(order?.quotes[0]?.amountInTargetCurrency).toBe(1460784);
    expect(order?.transactions[0]?.metadata?.bankAccountNumber).toBe("0123456789");
    expect(orderListSchema.parse(null)).toEqual([]);
  });

  it("parses the single shape with paymentCollectionMethod and displayAmount", () => {
    const order = orderSchema.parse(spec.singleOrder);
    expect(order).toMatchObject({ paymentCollectionMethod: "LIGHTNING", displayAmount: "3000.00 NGN" });
    expect(order.transactions).toEqual([]);
    expect(orderSchema.parse({ orderId: "1-2", status: "PENDING" }).quotes).toEqual([]);
  });

  it("parses the transaction detail with the nested order and quote", () => {
    const [detail] = transactionDetailListSchema.parse(spec.transactionDetail);
    expect(detail?.metadata?.merchantName).toBe("Ricki Tester");
    expect(detail?.metadata?.order?.quote?.totalAmount).toBe(6474);
    expect(detail?.metadata?.order?.quote?.equivalentAmount).toBe(10000);
  });

  it("normalises the detail from an object, an array or nothing to a list", () => {
    expect(transactionDetailListSchema.parse([spec.transactionDetail, spec.transactionDetail])).toHaveLength(
      2,
    );
    expect(transactionDetailListSchema.parse(spec.transactionDetail)).toHaveLength(1);
    expect(transactionDetailListSchema.parse(null)).toEqual([]);
  });

  it("accepts open status and currency values", () => {
    const transaction = transactionSchema.parse({
      ...spec.transactionNgn,
      status: "FAILED",
      currency: "USDT",
    });
    expect(transaction).toMatchObject({ status: "FAILED", currency: "USDT", amount: 300000 });
  });
});

describe("wallets, bank accounts and the profile", () => {
  it("reads balances as integers whether numbers or strings", () => {
    expect(walletListSchema.parse(spec.wallets).map((wallet) => wallet.balance)).toEqual([500000, 21000, 0]);
  });

  it("parses a bank account", () => {
    expect(bankAccountSchema.parse(spec.bankAccount)).toMatchObject({ bankAccountNumber: "3242273802" });
  });

  it("parses the profile with account, wallet details, webhook and settings", () => {
    const profile = userProfileSchema.parse(spec.userProfile);
    expect(profile.account?.settings?.language).toBe("en");
    expect(profile.account?.settings?.autopayout).toBe(false);
    expect(profile.account?.walletDetails?.balance).toBe(500000);
    expect(profile.account?.webhook?.isActive).toBe(true);
    expect(profile.kycInfo?.status).toBe("PENDING");
  });
});

describe("payment links", () => {
  it("parses the real creation answer", () => {
    expect(createdPaymentLinkSchema.parse(notesData("payment-link-created"))).toEqual({
      paymentLink: "https://checkout.staging.mavapay.co/9d1c20db-...",
      paymentRef: "9d1c20db-c46b-4a15-8233-1bb999e38195",
    });
  });

  it("parses a link with its orders; the string amount becomes an integer", () => {
    const link = paymentLinkSchema.parse(spec.paymentLinkWithOrders);
    expect(link.amount).toBe(2000000);
    expect(link.fee).toBeUndefined();
    expect(link.orders.map((order) => order.status)).toEqual(["EXPIRED", "PENDING"]);
  });

  it("unwraps paymentLinkDetails and reads the real BANKTRANSFER block", () => {
    const block = notesFixture("payment-link-banktransfer-block");
    const details = paymentLinkDetailsResponseSchema.parse({
      paymentLinkDetails: { ...spec.paymentLinkDetails, BANKTRANSFER: block },
    });
    expect(details.BANKTRANSFER).toMatchObject({
      amount: 884443,
      targetAmount: 5000,
      ngnBankAccountNumber: "3242473433",
    });
    expect(paymentLinkDetailsResponseSchema.parse(spec.paymentLinkDetails).id).toBe(
      spec.paymentLinkDetails.id,
    );
  });

  it("fills the request defaults the spec supports", () => {
    const request = paymentLinkRequestSchema.parse({
      name: "Shop",
      amount: 2000000,
      beneficiary: { onChainAddress: "tb1qexampleaddress" },
    });
    expect(request).toMatchObject({
      type: "One_Time",
      settlementMethod: "ONCHAIN",
      settlementCurrency: "BTC",
      paymentCurrency: "NGN",
      paymentMethods: ["BANKTRANSFER"],
      addFeeToTotalCost: false,
    });
  });
});

describe("lookups", () => {
  it("parses both bank lists", () => {
    expect(bankListSchema.parse(notesData("bank-list-ng"))).toEqual([
      { bankName: "KUDA MICROFINANCE BANK", nipBankCode: "090267" },
    ]);
    expect(zaBankListSchema.parse(notesData("bank-list-za"))).toContain("CAPITEC BANK");
  });

  it("parses both name enquiry variants, keeping leading zeros", () => {
    expect(nameEnquirySchema.parse(notesData("name-enquiry-long"))).toMatchObject({
      accountName: "Oladeji Olaolu",
      accountNumber: "0123456789",
      kycLevel: "3",
    });
    expect(nameEnquirySchema.parse(notesFixture("name-enquiry-short-data"))).toMatchObject({
      accountNumber: "0123456789",
      bankCode: "000013",
    });
  });

  it("keeps price rates as numbers", () => {
    const parsed = priceSchema.parse(spec.price);
    expect(parsed.btcPriceInUnitCurrency).toBe(168375961.2972606);
    expect(parsed.unitPricePerSat?.amount).toBe(1.683);
    expect(
      priceSchema.parse({ ...spec.price, btcPriceInUnitCurrency: "168375961.29" }).btcPriceInUnitCurrency,
    ).toBe(168375961.29);
  });
});

describe("simulation and webhook registration", () => {
  it("accepts the documented simulation bodies and reads the answer", () => {
    for (const body of notesFixture<unknown[]>("simulation-requests"))
      expect(simulatePayInRequestSchema.safeParse(body).success).toBe(true);
    expect(simulatePayInRequestSchema.safeParse({ currency: "NGN", orderId: "5466-3532" }).success).toBe(
      false,
    );
    expect(simulatePayInRequestSchema.safeParse({ currency: "BTC" }).success).toBe(false);
    expect(simulationResultSchema.parse(notesData("simulation-response"))).toBe(
      "PayIn simulation successful",
    );
  });

  it("parses webhook registration request and answer", () => {
    expect(webhookRequestSchema.safeParse(notesFixture("webhook-register-request")).success).toBe(true);
    expect(webhookRegistrationSchema.parse(notesData("webhook-register-response"))).toMatchObject({
      id: "wh_123456789",
      isActive: true,
    });
  });
});
