import { parse } from "csv-parse/sync";
import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byIso, type Country, formatClock, fromMajorString, localDay, zoneName } from "#src/money/index.js";
import { createStore, keys, type NewOrder, type OrderRecord, type Store } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";

const HOUR = 3_600_000;
const COUNTRIES = ["NG", "KE", "ZA", "GH"] as const;
const LOCAL = { NG: "NGNKOBO", KE: "KESCENT", ZA: "ZARCENT", GH: "GHSPESEWA" } as const;
const STAGES = [
  "completed",
  "failed",
  "payout_sent",
  "expired",
  "cancelled",
  "awaiting_payment",
  "payment_received",
] as const;
/** A label that needs quoting three ways in a CSV (comma, quote, line break). */
const AWKWARD_LABEL = 'ADA "AJ" OBI, Lagos\nIkeja ••6789';
const EN_HEADER = [
  "Date",
  "Time",
  "Time zone",
  "Type",
  "Country",
  "Recipient",
  "Amount paid",
  "Currency paid",
  "Amount delivered",
  "Currency delivered",
  "Fee",
  "Fee currency",
  "Rate (per 1 BTC)",
  "Status",
  "Order ID",
  "Payout reference",
];

/** Order `n` of a user: payouts, purchases, paid requests and refunded payouts over every corridor and stage. */
function seedOrder(userId: number, prefix: string, n: number, expiresAt: string): NewOrder {
  const corridor = COUNTRIES[n % 4]!;
  const stage = STAGES[n % STAGES.length]!;
  const common = {
    orderId: `${prefix}${String(n).padStart(4, "0")}`,
    quoteId: `q-${prefix}${n}`,
    hash: `h-${prefix}${n}`,
    chatId: userId,
    userId,
    verificationCode: "🦊🍋",
    expiresAt,
    stage,
  };
  if (n % 5 === 0) {
    return {
      ...common,
      kind: "buy",
      corridor: "NG",
      pay: { amount: 4_000_000 + n * 101, currency: "NGNKOBO" },
      receive: { amount: 38_000 + n, currency: "BTCSAT" },
      fee: { amount: 20_000 + n, currency: "NGNKOBO" },
      networkFeeSats: 700,
      ratePerBtc: 10_000_000_000,
      recipientLabel: "tb1qw5…jzsx",
      ...(stage === "completed" ? { txid: "ab".repeat(32) } : {}),
    };
  }
  return {
    ...common,
    kind: "payout",
    corridor,
    pay: { amount: 12_000 + n * 37, currency: "BTCSAT" },
    receive: { amount: 1_000_000 + n * 1_009, currency: LOCAL[corridor] },
    fee: { amount: 60 + (n % 13), currency: "BTCSAT" },
    recipientLabel: n % 50 === 7 ? AWKWARD_LABEL : `M-Pesa ••${String(n % 10_000).padStart(4, "0")} · JANE`,
    ...(n % 5 === 1 ? { requestId: `req${n}` } : {}),
    ...(stage === "failed" && n % 5 === 2
      ? { refund: { state: "paid", amountSats: 12_000 + n * 37, updatedAt: expiresAt } }
      : {}),
    ...(stage === "completed" ? { payoutReference: `NIP${n}` } : {}),
  };
}

/** The file's records, header first, read back with the csv project's own parser. */
function records(stack: Stack, document: Message): string[][] {
  const bytes = stack.tg.fileBytes(document.document!.file_id);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return parse(bytes, { bom: true }) as string[][];
}

/** Sum of a column's exact decimals per currency, in minor units. */
function columnSums(rows: string[][], amountAt: number, currencyAt: number): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const row of rows) {
    const code = byIso(row[currencyAt]!)!.code;
    const minor = fromMajorString(row[amountAt]!, code);
    expect(minor, row.join(",")).toBeDefined();
    sums[code] = (sums[code] ?? 0) + minor!;
  }
  return sums;
}

function storedSums(orders: OrderRecord[], side: "pay" | "receive" | "fee"): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const order of orders)
    sums[order[side].currency] = (sums[order[side].currency] ?? 0) + order[side].amount;
  return sums;
}

/** /history → ⬇️ Export → the period picker. */
async function openPicker(user: UserDriver, exportLabel: string, pickerMatch: string): Promise<Message> {
  await user.send("/history");
  const page = await user.nextMessage({ match: "🧾" });
  await (await user.press(page, exportLabel)).answer();
  return user.nextMessage({ match: pickerMatch });
}

describe("/history export (order statements)", () => {
  let stack: Stack;
  /** A store on the same Redis whose clock the test sets, to date seeded orders. */
  let seeder: Store;
  let seedClock = 0;
  let now = 0;
  let expiresAt = "";
  beforeAll(async () => {
    stack = await startStack();
    seeder = createStore(stack.redis, () => seedClock);
    now = stack.sandbox.now();
    // Far enough ahead that the reconciler leaves the seeded orders alone.
    expiresAt = new Date(now + 24 * HOUR).toISOString();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** `count` orders, the newest a minute ago, then every `gapMs` back. */
  async function seed(userId: number, prefix: string, count: number, gapMs: number): Promise<OrderRecord[]> {
    return Promise.all(
      Array.from({ length: count }, (_, n) => {
        // create() reads its clock before its first await: each order gets its own time.
        seedClock = now - 60_000 - n * gapMs;
        return seeder.orders.create(seedOrder(userId, prefix, n, expiresAt));
      }),
    );
  }

  it("sends 500 orders as a CSV whose rows match the stored orders and add up to their amounts", async () => {
    const user = stack.tg.user({ id: 7600, language_code: "en" });
    const stored = await seed(user.id, "A", 500, 2 * HOUR);
    await seed(7601, "B", 20, HOUR);
    // The newest order's corridor sets the clock (nothing chosen in /language).
    const clock: Country = stored[0]!.corridor;

    const picker = await openPicker(user, "⬇️ Export", "Export your orders");
    expect(picker.reply_markup?.inline_keyboard.flat().map((button) => button.text)).toEqual([
      "This month",
      "Last month",
      "Last 3 months",
      "This year",
      "Everything",
    ]);
    expect((await (await user.press(picker, "Everything")).answer()).text).toBe("Preparing your file…");
    const document = await user.nextDocument();
    expect(document.document).toMatchObject({ mime_type: "text/csv" });
    expect(document.document?.file_name).toBe(`orders-until-${localDay(now, clock)}.csv`);
    expect(document.caption).toBe(`🧾 Your orders · Everything\n500 orders, times in ${zoneName(clock)}`);

    const [header, ...rows] = records(stack, document);
    expect(header).toEqual(EN_HEADER);
    expect(rows).toHaveLength(500);
    // Newest first, exactly the user's orders: the other user's never appear.
    expect(rows.map((row) => row[14])).toEqual(stored.map((order) => order.orderId));
    expect(rows.some((row) => row.join(",").includes("B0"))).toBe(false);
    // Exact decimals that add up to the stored integers, per currency, for every amount column.
    expect(columnSums(rows, 6, 7)).toEqual(storedSums(stored, "pay"));
    expect(columnSums(rows, 8, 9)).toEqual(storedSums(stored, "receive"));
    expect(columnSums(rows, 10, 11)).toEqual(storedSums(stored, "fee"));
    // Times on the user's clock, as /history shows them; each kind and stage named.
    const created = Date.parse(stored[0]!.createdAt);
    expect(rows[0]!.slice(0, 3).join(" ")).toBe(
      `${localDay(created, clock)} ${formatClock(created, "en", clock)}`,
    );
    expect(new Set(rows.map((row) => row[3]))).toEqual(
      new Set(["Payout", "Bitcoin purchase", "Request paid", "Refunded payout"]),
    );
    expect(new Set(rows.map((row) => row[13])).size).toBe(STAGES.length);
    // A label with a comma, quotes and a line break comes back whole.
    expect(rows.filter((row) => row[5] === AWKWARD_LABEL)).toHaveLength(10);
  });

  it("a second export while one runs is refused; once it is sent, the next one goes", async () => {
    const user = stack.tg.user({ id: 7610, language_code: "en" });
    const stored = await seed(user.id, "C", 40, 23 * HOUR);
    const clock: Country = stored[0]!.corridor;
    const month = localDay(now, clock).slice(0, 7);
    const thisMonth = stored.filter((order) =>
      localDay(Date.parse(order.createdAt), clock).startsWith(month),
    );
    const picker = await openPicker(user, "⬇️ Export", "Export your orders");
    // Telegram takes its time with the upload.
    stack.tg.faults.add({ method: "sendDocument", chatId: user.id, delayMs: 1_500 });

    expect((await (await user.press(picker, "This month")).answer()).text).toBe("Preparing your file…");
    expect((await (await user.press(picker, "Everything")).answer()).text).toBe(
      "Your file is still being prepared. It will arrive in a moment.",
    );
    const first = await user.nextDocument();
    expect(first.caption).toContain(`This month\n${thisMonth.length} order`);
    const [, ...rows] = records(stack, first);
    expect(rows.map((row) => row[14])).toEqual(thisMonth.map((order) => order.orderId));

    // Released once the file is sent (the upload's answer reaches the bot just after the file reaches the chat).
    await expect.poll(() => stack.redis.exists(keys.userStatement(user.id))).toBe(0);
    expect((await (await user.press(picker, "Everything")).answer()).text).toBe("Preparing your file…");
    const second = await user.nextDocument();
    expect(records(stack, second)).toHaveLength(41);
    // The refused press made no file of its own.
    expect(user.messages().filter((message) => message.document)).toHaveLength(2);
  });

  it("writes the header and caption in the user's language", async () => {
    const user = stack.tg.user({ id: 7620, language_code: "fr" });
    await seed(user.id, "F", 3, HOUR);
    const picker = await openPicker(user, "⬇️ Exporter", "Exporter vos commandes");
    expect((await (await user.press(picker, "Tout")).answer()).text).toBe("Préparation de votre fichier…");
    const document = await user.nextDocument();
    expect(document.caption).toMatch(/^🧾 Vos commandes · Tout\n3 commandes, heures en (WAT|EAT|SAST|GMT)$/);
    const [header, ...rows] = records(stack, document);
    expect(header).toEqual([
      "Jour",
      "Heure",
      "Fuseau horaire",
      "Opération",
      "Pays",
      "Bénéficiaire",
      "Montant payé",
      "Devise payée",
      "Montant livré",
      "Devise livrée",
      "Frais",
      "Devise des frais",
      "Taux (pour 1 BTC)",
      "Statut",
      "N° de commande",
      "Référence du versement",
    ]);
    expect(rows.map((row) => [row[3], row[13]])).toEqual([
      ["Achat de bitcoin", "Terminée"],
      ["Demande payée", "Échouée"],
      ["Envoi", "En route"],
    ]);
  });

  it("a period without orders is said so, and no file is sent", async () => {
    const user = stack.tg.user({ id: 7630, language_code: "en" });
    await user.send("/history");
    const empty = await user.nextMessage({ match: "You have no orders yet" });
    // No Export button on an empty history; a forged press of one still only tells.
    expect(empty.reply_markup?.inline_keyboard.flat().map((button) => button.text)).not.toContain("⬇️ Export");
    expect((await (await user.pressData(empty, "stmt:last_month")).answer()).text).toBe(
      "Preparing your file…",
    );
    expect((await user.nextMessage()).text).toBe(
      "🧾 You have no orders in this period (Last month). Choose another period, or send money with /send.",
    );
    // A malformed period matches nothing of the export.
    await (await user.pressData(empty, "stmt:last_month:7601")).answer();
    await user.send("/history");
    await user.nextMessage({ match: "You have no orders yet" });
    const sent = stack.tg
      .calls({ method: "sendDocument" })
      .filter((call) => Number(call.params.chat_id) === user.id);
    expect(sent).toEqual([]);
    expect(user.messages().filter((message) => message.document)).toEqual([]);
  });
});
