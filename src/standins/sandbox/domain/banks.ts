import { readFileSync } from "node:fs";

/** NGN bank registry (verbatim copy of ../shared/data/banks.json) and the ZA bank-name list. */

interface NgnBank {
  bankName: string;
  nipBankCode: string;
}

interface RegistryEntry {
  name: string;
  code: string;
  bankName: string;
  nipBankCode: string;
  icon: string;
}

/** api-behaviour-notes §5 (guides/ngn-zar.mdx). */
export const ZA_BANKS: readonly string[] = [
  "ABSA",
  "ACCESS BANK",
  "AFRICAN BANK",
  "ALBARAKA BANK",
  "BANK ZERO MUTUAL BANK",
  "BIDVEST BANK",
  "CAPITEC BANK",
  "CAPITEC BUSINESS BANK",
  "DISCOVERY BANK",
  "FINBOND EPE",
  "FINBOND MUTUAL BANK",
  "FNB",
  "INVESTEC BANK LIMITED",
  "NEDBANK",
  "STANDARD BANK",
  "TYMEBANK",
  "UBANK LTD",
];

export class BankDirectory {
  readonly ngn: readonly NgnBank[];
  private readonly byCode: Map<string, NgnBank>;

  constructor(entries: readonly NgnBank[]) {
    this.ngn = entries;
    this.byCode = new Map(entries.map((bank) => [bank.nipBankCode, bank]));
  }

  /** Load the registry shipped in src/standins/sandbox/data, deduplicated by nipBankCode (first wins). */
  static load(): BankDirectory {
    const file = new URL("../data/banks.json", import.meta.url);
    const registry = JSON.parse(readFileSync(file, "utf8")) as RegistryEntry[];
    const seen = new Set<string>();
    const banks: NgnBank[] = [];
    for (const entry of registry) {
      if (seen.has(entry.nipBankCode)) continue;
      seen.add(entry.nipBankCode);
      banks.push({ bankName: entry.bankName, nipBankCode: entry.nipBankCode });
    }
    return new BankDirectory(banks);
  }

  ngnByCode(code: string): NgnBank | undefined {
    return this.byCode.get(code);
  }

  isZaBank(name: string): boolean {
    return ZA_BANKS.includes(name);
  }
}
