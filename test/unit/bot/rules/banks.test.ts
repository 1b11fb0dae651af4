import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  BANK_ALIASES,
  type BankEntry,
  createBankSearch,
  matchZaBanks,
  POPULAR_BANKS,
} from "#src/bot/rules/banks.js";

// The NGN bank registry the sandbox serves (a verbatim copy of the shared data file).
const registry = JSON.parse(
  readFileSync(new URL("../../../../src/standins/sandbox/data/banks.json", import.meta.url), "utf8"),
) as Array<BankEntry & { name: string }>;
const banks: BankEntry[] = registry.map(({ bankName, nipBankCode }) => ({ bankName, nipBankCode }));
const search = createBankSearch(banks);
const first = (query: string) => search.search(query)[0]?.bankName;

describe("NGN bank search", () => {
  it.each([
    ["gtb", "GTBANK PLC"],
    ["GTBank", "GTBANK PLC"],
    ["guaranty trust", "GTBANK PLC"],
    ["first bank", "FIRST BANK OF NIGERIA"],
    ["fbn", "FIRST BANK OF NIGERIA"],
    ["kuda", "KUDA MICROFINANCE BANK"],
    ["opay", "OPAY"],
    ["access", "ACCESS BANK"],
    ["uba", "UNITED BANK FOR AFRICA"],
    ["zenith", "ZENITH BANK"],
    ["palmpay", "PALMPAY"],
    ["moniepoint", "MONIEPOINT MICROFINANCE BANK"],
    ["fcmb", "FIRST CITY MONUMENT BANK"],
    ["first city", "FIRST CITY MONUMENT BANK"],
    ["Stanbic", "STANBIC IBTC BANK"],
    ["wema bank", "WEMA BANK"],
  ])("%s → %s first", (query, expected) => {
    expect(first(query)).toBe(expected);
  });

  it("tolerates typos", () => {
    expect(first("zenit")).toBe("ZENITH BANK");
    expect(first("fidelty")).toBe("FIDELITY BANK");
    expect(search.search("kudaa").map((bank) => bank.bankName)).toContain("KUDA MICROFINANCE BANK");
  });

  it("offers several candidates, each bank once, at most the limit", () => {
    const results = search.search("access", 6);
    expect(results.length).toBeGreaterThan(1);
    expect(results.length).toBeLessThanOrEqual(6);
    expect(new Set(results.map((bank) => bank.nipBankCode)).size).toBe(results.length);
    expect(results.every((bank) => /ACCESS/.test(bank.bankName))).toBe(true);
  });

  it("finds nothing for nonsense or a single letter", () => {
    expect(search.search("qqqzzzxx")).toEqual([]);
    expect(search.search("a")).toEqual([]);
    expect(search.search("  ")).toEqual([]);
  });

  it("resolves by NIP code, and every alias and popular bank points at a bank of the registry", () => {
    expect(search.byCode("000013")?.bankName).toBe("GTBANK PLC");
    expect(search.byCode("999999")).toBeUndefined();
    for (const code of [...Object.values(BANK_ALIASES), ...POPULAR_BANKS.map((bank) => bank.code)]) {
      expect(search.byCode(code), code).toBeDefined();
    }
  });

  it("answers a repeated query as a fresh index does, at any limit, however many queries came between", () => {
    const repeated = createBankSearch(banks);
    const queries = ["gtb", "access", "first bank", "kudaa", "micro finance bank", `${"a".repeat(80)} bank`];
    const fresh = (query: string, limit?: number) => createBankSearch(banks).search(query, limit);
    for (const query of queries) expect(repeated.search(query)).toEqual(fresh(query));
    // More distinct queries than one index keeps: the first ones are answered again, the same.
    for (let index = 0; index < 300; index += 1) repeated.search(`bank ${index}`);
    for (const query of queries) {
      expect(repeated.search(query)).toEqual(fresh(query));
      expect(repeated.search(query, 2)).toEqual(fresh(query, 2));
      expect(repeated.search(query, 40)).toEqual(fresh(query, 40));
    }
    expect(repeated.search("bank", 40).length).toBeGreaterThan(20);
  });

  it("ignores an alias whose bank is missing from the API's list", () => {
    const partial = createBankSearch(banks.filter((bank) => bank.nipBankCode !== "000013"));
    expect(partial.search("gtb").map((bank) => bank.bankName)).not.toContain("GTBANK PLC");
  });
});

describe("ZA bank pick by name", () => {
  const names = ["ABSA", "CAPITEC BANK", "CAPITEC BUSINESS BANK", "FNB", "NEDBANK", "STANDARD BANK"];
  it("finds the one bank a whole name or a unique fragment points at", () => {
    expect(matchZaBanks(names, "fnb")).toEqual([3]);
    expect(matchZaBanks(names, "capitec bank")).toEqual([1]);
    expect(matchZaBanks(names, "ned")).toEqual([4]);
  });
  it("lists every bank a shared fragment matches, and none for nothing or one letter", () => {
    expect(matchZaBanks(names, "capitec")).toEqual([1, 2]);
    expect(matchZaBanks(names, "Bank")).toEqual([1, 2, 4, 5]);
    expect(matchZaBanks(names, "zzz")).toEqual([]);
    expect(matchZaBanks(names, "x")).toEqual([]);
  });
});
