import Fuse from "fuse.js";

/**
 * Finding a Nigerian bank from what people type: the names people say ("gtb", "fbn", "kuda") through an alias
 * table, then fuzzy search (fuse.js) over the API's bank list. Pure: the list is passed in.
 */

export interface BankEntry {
  bankName: string;
  /** 6-digit NIP code, sent as the beneficiary's bankCode. */
  nipBankCode: string;
}

/** Short names → NIP code. Keys are normalised (lower case, no spaces or punctuation, filler words removed). */
export const BANK_ALIASES: Readonly<Record<string, string>> = {
  gtb: "000013",
  gtbank: "000013",
  gt: "000013",
  guaranty: "000013",
  guarantytrust: "000013",
  fbn: "000016",
  first: "000016",
  firstbank: "000016",
  uba: "000004",
  unitedbankforafrica: "000004",
  zenith: "000015",
  kuda: "090267",
  opay: "100004",
  paycom: "100004",
  palmpay: "100033",
  palm: "100033",
  moniepoint: "090405",
  access: "000014",
  diamond: "000005",
  fcmb: "000003",
  firstcity: "000003",
  firstcitymonument: "000003",
  eco: "000010",
  ecobank: "000010",
  fidelity: "000007",
  stanbic: "000012",
  stanbicibtc: "000012",
  ibtc: "000012",
  sterling: "000001",
  union: "000018",
  wema: "000017",
  alat: "000017",
  polaris: "000008",
  skye: "000008",
  keystone: "000002",
  jaiz: "000006",
  heritage: "000020",
  globus: "000027",
  titan: "000025",
  titantrust: "000025",
  vfd: "090110",
  paga: "100002",
  carbon: "100026",
  standardchartered: "000021",
  scb: "000021",
  suntrust: "000022",
  taj: "000026",
  lotus: "000029",
  parallex: "000030",
  premiumtrust: "000031",
  optimus: "000036",
  signature: "000034",
};

/** The "popular banks" keyboard: label → NIP code (labels are brand names, the same in every language). */
export const POPULAR_BANKS: ReadonlyArray<{ label: string; code: string }> = [
  { label: "GTBank", code: "000013" },
  { label: "Access", code: "000014" },
  { label: "Zenith", code: "000015" },
  { label: "First Bank", code: "000016" },
  { label: "UBA", code: "000004" },
  { label: "Kuda", code: "090267" },
  { label: "OPay", code: "100004" },
  { label: "PalmPay", code: "100033" },
  { label: "Moniepoint", code: "090405" },
];

/** Distinct queries whose answers one index keeps, the longest query kept, and how many banks of each answer. */
const ANSWERS_KEPT = 256;
const QUERY_KEPT_LENGTH = 64;
const ANSWER_LENGTH = 20;

const FILLER = new Set(["bank", "plc", "ltd", "limited", "nigeria", "of", "the", "nig"]);

/** "First Bank of Nigeria!" → "first bank of nigeria". */
function normaliseBankQuery(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The alias key of a query: filler words dropped, spaces removed ("first bank" → "first"). */
function aliasKey(normalised: string): string[] {
  const words = normalised.split(" ").filter(Boolean);
  const withoutFiller = words.filter((word) => !FILLER.has(word));
  return [words.join(""), withoutFiller.join("")].filter(Boolean);
}

export interface BankSearch {
  search(query: string, limit?: number): BankEntry[];
  byCode(code: string): BankEntry | undefined;
}

/** Build a searcher over one bank list (index once, search many times). */
export function createBankSearch(banks: readonly BankEntry[]): BankSearch {
  const byCode = new Map<string, BankEntry>();
  for (const bank of banks) if (!byCode.has(bank.nipBankCode)) byCode.set(bank.nipBankCode, bank);
  const unique = [...byCode.values()];
  const fuse = new Fuse(unique, {
    keys: ["bankName"],
    includeScore: true,
    ignoreLocation: true,
    threshold: 0.3,
    minMatchCharLength: 2,
  });

  // People type the same few names ("gtb", "opay", "access") over and over, and a fuzzy pass over ~500 banks costs
  // 0.2–0.6 ms: answers are kept per normalised query (bounded; the oldest goes first) for as long as the index.
  const answers = new Map<string, readonly BankEntry[]>();
  const rank = (normalised: string, limit: number): readonly BankEntry[] => {
    if (limit > ANSWER_LENGTH || normalised.length > QUERY_KEPT_LENGTH) return rankBanks(normalised);
    const known = answers.get(normalised);
    if (known) return known;
    const ranked = rankBanks(normalised).slice(0, ANSWER_LENGTH);
    if (answers.size >= ANSWERS_KEPT) answers.delete(answers.keys().next().value as string);
    answers.set(normalised, ranked);
    return ranked;
  };
  const rankBanks = (normalised: string): readonly BankEntry[] => {
    const found: BankEntry[] = [];
    const add = (bank: BankEntry | undefined) => {
      if (bank && !found.includes(bank)) found.push(bank);
    };
    for (const key of aliasKey(normalised)) {
      const code = BANK_ALIASES[key];
      if (code) add(byCode.get(code));
    }
    const words = normalised.split(" ").filter((word) => word.length > 0 && !FILLER.has(word));
    const fuzzyQuery = words.length > 0 ? words.join(" ") : normalised;
    const results = fuse.search(fuzzyQuery);
    // Names that start with what was typed read as the obvious answer ("access" → ACCESS BANK first).
    const starts = (bank: BankEntry) => normaliseBankQuery(bank.bankName).startsWith(fuzzyQuery);
    const ranked = results
      .map((result, order) => ({ bank: result.item, order, starts: starts(result.item) }))
      .sort((a, b) => Number(b.starts) - Number(a.starts) || a.order - b.order);
    for (const { bank } of ranked) add(bank);
    return found;
  };

  return {
    byCode: (code) => byCode.get(code),
    search(query, limit = 6) {
      const normalised = normaliseBankQuery(query);
      if (normalised.length < 2) return [];
      return rank(normalised, limit).slice(0, limit);
    },
  };
}

/**
 * The South African banks a typed fragment points at, by their place in `names` (case and punctuation ignored): the
 * one whose whole name it is, else every name that contains it. Empty for nothing, or under two characters.
 */
export function matchZaBanks(names: readonly string[], text: string): number[] {
  const query = normaliseBankQuery(text);
  if (query.length < 2) return [];
  const normalised = names.map((name) => normaliseBankQuery(name));
  const exact = normalised.indexOf(query);
  if (exact >= 0) return [exact];
  return normalised.flatMap((name, index) => (name.includes(query) ? [index] : []));
}
