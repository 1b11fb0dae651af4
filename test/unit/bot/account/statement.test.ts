import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { csvStream } from "#src/bot/account/statement/csv.js";
import { periodRange, statementFileName } from "#src/bot/account/statement/period.js";
import { STATEMENT_COLUMNS, statementHeader, statementRow } from "#src/bot/account/statement/rows.js";
import { createTranslator, type TFunction } from "#src/i18n/index.js";
import { createLogger } from "#src/log/logger.js";
import { formatClock, localDay } from "#src/money/index.js";
import type { OrderRecord } from "#src/store/index.js";

/** 2026-11-28 07:18:30 in Lagos (WAT, UTC+1). */
const CREATED = Date.UTC(2026, 10, 28, 6, 18, 30);

function order(overrides: Partial<OrderRecord> = {}): OrderRecord {
  return {
    orderId: "ord_1",
    quoteId: "q1",
    hash: "h1",
    kind: "payout",
    corridor: "NG",
    chatId: 1,
    userId: 1,
    stage: "completed",
    pay: { amount: 100_000, currency: "BTCSAT" },
    receive: { amount: 9_900_000, currency: "NGNKOBO" },
    fee: { amount: 1_000, currency: "BTCSAT" },
    recipientLabel: "GTBANK PLC ••6789 · ADA OBI",
    verificationCode: "🦊🍋",
    expiresAt: new Date(CREATED + 600_000).toISOString(),
    createdAt: new Date(CREATED).toISOString(),
    updatedAt: new Date(CREATED).toISOString(),
    payoutReference: "NIP-2026-ABC",
    ...overrides,
  };
}

const cell = (row: string[], column: (typeof STATEMENT_COLUMNS)[number]) =>
  row[STATEMENT_COLUMNS.indexOf(column)];

async function csvText(rows: string[][]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of csvStream(
    (async function* () {
      yield* rows;
    })(),
  ))
    chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe("statement rows", () => {
  let en: TFunction;
  let fr: TFunction;
  beforeAll(async () => {
    const translator = await createTranslator({ logger: createLogger({ level: "silent", pretty: false }) });
    en = translator.t("en");
    fr = translator.t("fr");
  });

  it("writes amounts as exact major-unit decimals with their ISO codes, and the rate the user got", () => {
    const row = statementRow(order(), { t: en, clock: "NG" });
    expect(row).toHaveLength(STATEMENT_COLUMNS.length);
    expect(cell(row, "paid")).toBe("0.00100000");
    expect(cell(row, "paid_currency")).toBe("BTC");
    expect(cell(row, "received")).toBe("99000.00");
    expect(cell(row, "received_currency")).toBe("NGN");
    expect(cell(row, "fee")).toBe("0.00001000");
    expect(cell(row, "fee_currency")).toBe("BTC");
    // 99,000 sats exchanged bought ₦99,000.00: ₦100,000,000.00 per bitcoin.
    expect(cell(row, "rate")).toBe("100000000.00");
    expect(cell(row, "order_id")).toBe("ord_1");
    expect(cell(row, "reference")).toBe("NIP-2026-ABC");

    // Past what a float holds exactly: every digit is kept.
    const huge = statementRow(
      order({ receive: { amount: Number.MAX_SAFE_INTEGER, currency: "KESCENT" }, corridor: "KE" }),
      { t: en, clock: "KE" },
    );
    expect(cell(huge, "received")).toBe("90071992547409.91");
    expect(cell(huge, "received_currency")).toBe("KES");
  });

  it("a purchase's rate is its exchange rate, and its reference is its on-chain transaction", () => {
    const buy = order({
      kind: "buy",
      pay: { amount: 4_000_000, currency: "NGNKOBO" },
      receive: { amount: 38_000, currency: "BTCSAT" },
      fee: { amount: 20_000, currency: "NGNKOBO" },
      networkFeeSats: 1_000,
      ratePerBtc: 10_000_000_000,
      payoutReference: undefined,
      txid: "ab".repeat(32),
    });
    const row = statementRow(buy, { t: en, clock: "NG" });
    expect([cell(row, "paid"), cell(row, "paid_currency")]).toEqual(["40000.00", "NGN"]);
    expect([cell(row, "received"), cell(row, "received_currency")]).toEqual(["0.00038000", "BTC"]);
    expect(cell(row, "rate")).toBe("100000000.00");
    expect(cell(row, "reference")).toBe("ab".repeat(32));
    expect(cell(row, "kind")).toBe("Bitcoin purchase");
  });

  it("a payout paid in naira shows naira paid, shillings delivered and no rate per bitcoin (none was exchanged)", () => {
    const naira = order({
      corridor: "KE",
      pay: { amount: 1_740_982, currency: "NGNKOBO" },
      receive: { amount: 150_000, currency: "KESCENT" },
      fee: { amount: 10_212, currency: "NGNKOBO" },
    });
    const row = statementRow(naira, { t: en, clock: "NG" });
    expect([cell(row, "paid"), cell(row, "paid_currency")]).toEqual(["17409.82", "NGN"]);
    expect([cell(row, "received"), cell(row, "received_currency")]).toEqual(["1500.00", "KES"]);
    expect(cell(row, "rate")).toBe("");
  });

  it("names each kind and stage in the reader's language", () => {
    const kinds = [
      order(),
      order({ kind: "buy" }),
      order({ requestId: "tok" }),
      order({ stage: "failed", refund: { state: "paid", amountSats: 100_000, updatedAt: "x" } }),
      order({ stage: "failed", refund: { state: "sent", amountSats: 100_000, updatedAt: "x" } }),
    ].map((each) => cell(statementRow(each, { t: en, clock: "NG" }), "kind"));
    expect(kinds).toEqual(["Payout", "Bitcoin purchase", "Request paid", "Refunded payout", "Payout"]);
    const french = statementRow(order({ stage: "cancelled" }), { t: fr, clock: "NG" });
    expect([cell(french, "kind"), cell(french, "status")]).toEqual(["Envoi", "Annulée"]);
    expect(statementHeader(fr).slice(0, 3)).toEqual(["Jour", "Heure", "Fuseau horaire"]);
    expect(statementHeader(en)).toHaveLength(STATEMENT_COLUMNS.length);
  });

  it("dates and times are the reader's clock's, as /history shows them", () => {
    for (const clock of ["NG", "KE", "ZA", "GH"] as const) {
      const row = statementRow(order(), { t: en, clock });
      expect(cell(row, "date")).toBe(localDay(CREATED, clock));
      expect(`${cell(row, "time")} ${cell(row, "zone")}`).toBe(formatClock(CREATED, "en", clock));
    }
    expect(cell(statementRow(order(), { t: en, clock: "KE" }), "time")).toBe("09:18");
  });

  it("masks long digit runs and never starts a cell with a formula sign", () => {
    const row = statementRow(order({ recipientLabel: "ACCESS BANK 0123456789" }), { t: en, clock: "NG" });
    expect(cell(row, "recipient")).toBe("ACCESS BANK ******6789");
    for (const label of ['=HYPERLINK("http://x.example","pay")', "+2547", "-1", "@SUM(A1)"]) {
      const text = cell(statementRow(order({ recipientLabel: label }), { t: en, clock: "NG" }), "recipient");
      expect(text).toBe(`'${label}`);
    }
  });
});

describe("statement CSV", () => {
  it("is UTF-8 with a BOM, CRLF records, and quotes commas, quotes and line breaks (RFC 4180)", async () => {
    const label = 'ADA "AJ" OBI, Lagos\nIkeja ••6789';
    const rows = [
      ["Date", "Recipient", "Amount"],
      ["2026-11-28", label, "99000.00"],
      ["2026-11-27", "Ọlá Adé", "1.50"],
    ];
    const bytes = await csvText(rows);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString("utf8");
    expect(text).toBe(
      'Date,Recipient,Amount\r\n2026-11-28,"ADA ""AJ"" OBI, Lagos\nIkeja ••6789",99000.00\r\n2026-11-27,Ọlá Adé,1.50\r\n',
    );
    expect(parse(bytes, { bom: true })).toEqual(rows);
  });

  it("a failed read reaches whoever reads the stream", async () => {
    const failing = csvStream(
      (async function* () {
        yield ["a"];
        throw new Error("redis went away");
      })(),
    );
    await expect(
      (async () => {
        for await (const _ of failing) {
          // draining
        }
      })(),
    ).rejects.toThrow("redis went away");
  });
});

describe("statement periods", () => {
  /** 2026-01-15 00:30 in Nairobi (EAT, UTC+3) is still the 14th in UTC. */
  const NOW = Date.UTC(2026, 0, 14, 21, 30);

  it("start at midnight of the reader's clock, last month across a new year", () => {
    const eatMidnight = (year: number, month: number) => Date.UTC(year, month, 1) - 3 * 3_600_000;
    expect(periodRange("this_month", NOW, "KE")).toEqual({ fromMs: eatMidnight(2026, 0), toMs: NOW + 1 });
    expect(periodRange("last_month", NOW, "KE")).toEqual({
      fromMs: eatMidnight(2025, 11),
      toMs: eatMidnight(2026, 0),
    });
    expect(periodRange("last_3_months", NOW, "KE").fromMs).toBe(eatMidnight(2025, 10));
    expect(periodRange("this_year", NOW, "KE").fromMs).toBe(eatMidnight(2026, 0));
    expect(periodRange("all", NOW, "KE")).toEqual({ fromMs: 0, toMs: NOW + 1 });
    // In Accra (GMT) the same instant is still 14 January: this month began at UTC midnight.
    expect(periodRange("this_month", NOW, "GH").fromMs).toBe(Date.UTC(2026, 0, 1));
  });

  it("name the file after the period", () => {
    const name = (period: Parameters<typeof periodRange>[0]) =>
      statementFileName(period, periodRange(period, NOW, "KE"), "KE");
    expect(name("this_month")).toBe("orders-2026-01.csv");
    expect(name("last_month")).toBe("orders-2025-12.csv");
    expect(name("last_3_months")).toBe("orders-2025-11-2026-01.csv");
    expect(name("this_year")).toBe("orders-2026.csv");
    expect(name("all")).toBe("orders-until-2026-01-15.csv");
  });
});
