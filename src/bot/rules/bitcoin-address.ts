import { AddressType, getAddressInfo, Network } from "bitcoin-address-validation";

/**
 * Checking an on-chain destination before it reaches a quote: the address must decode (checksum included), be of
 * a spendable standard type, and belong to the network this deployment pays on. Signet shares testnet's address
 * formats (tb1…, m…/n…, 2…), so signet and testnet accept the same addresses.
 */
export type BitcoinNetworkSetting = "mainnet" | "testnet" | "signet";

/** The network an address belongs to, as far as its encoding tells. */
type AddressNetwork = "mainnet" | "testnet" | "regtest";

type AddressRejection = "empty" | "malformed" | "wrong_network" | "lightning" | "unsupported_type";

export type AddressCheck =
  | { ok: true; address: string; network: AddressNetwork; type: AddressType }
  | { ok: false; reason: AddressRejection; found?: AddressNetwork };

const SPENDABLE_TYPES: ReadonlySet<AddressType> = new Set([
  AddressType.p2pkh,
  AddressType.p2sh,
  AddressType.p2wpkh,
  AddressType.p2wsh,
  AddressType.p2tr,
]);

/** What each configured network's addresses start with (used in prompts: "starts with …"). */
const ADDRESS_PREFIXES: Record<BitcoinNetworkSetting, readonly [string, ...string[]]> = {
  mainnet: ["bc1…", "1…", "3…"],
  testnet: ["tb1…", "m…", "n…", "2…"],
  signet: ["tb1…", "m…", "n…", "2…"],
};

/**
 * The prefixes as a list in the reader's language ("tb1…, m…, n… ou 2…"): the last separator is a word, so it
 * comes from the locale (`buy:address.prefixes`), never an English "or" baked into the list.
 */
export function addressPrefixesText(
  network: BitcoinNetworkSetting,
  t: (key: string, options: { head: string; last: string }) => string,
): string {
  const prefixes = ADDRESS_PREFIXES[network];
  const last = prefixes[prefixes.length - 1] ?? "";
  return t("buy:address.prefixes", { head: prefixes.slice(0, -1).join(", "), last });
}

const expectedNetwork = (setting: BitcoinNetworkSetting): AddressNetwork =>
  setting === "mainnet" ? "mainnet" : "testnet";

/**
 * Strip what wallets wrap an address in: whitespace, a BIP21 `bitcoin:` URI with its `?amount=…` query. Bech32
 * addresses are case-insensitive (QR codes use upper case); they are stored lower-case.
 */
export function normaliseAddressInput(input: string): string {
  let text = input.normalize("NFKC").trim().replace(/\s+/g, "");
  text = text.replace(/^bitcoin:/i, "");
  const query = text.indexOf("?");
  if (query >= 0) text = text.slice(0, query);
  if (/^(bc|tb|bcrt)1/i.test(text) && (text === text.toUpperCase() || text === text.toLowerCase())) {
    text = text.toLowerCase();
  }
  return text;
}

/** Lightning invoices, LNURLs and Lightning addresses are not on-chain destinations. */
function looksLikeLightning(text: string): boolean {
  return (
    /^(lightning:)?(lnbc|lntb|lntbs|lnbcrt|lnurl)/i.test(text) || /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(text)
  );
}

export function checkBitcoinAddress(input: string, setting: BitcoinNetworkSetting): AddressCheck {
  const text = normaliseAddressInput(input);
  if (text === "") return { ok: false, reason: "empty" };
  if (looksLikeLightning(text)) return { ok: false, reason: "lightning" };
  let info: ReturnType<typeof getAddressInfo>;
  try {
    info = getAddressInfo(text);
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const found: AddressNetwork =
    info.network === Network.mainnet ? "mainnet" : info.network === Network.regtest ? "regtest" : "testnet";
  if (found !== expectedNetwork(setting)) return { ok: false, reason: "wrong_network", found };
  if (!SPENDABLE_TYPES.has(info.type)) return { ok: false, reason: "unsupported_type", found };
  return { ok: true, address: text, network: found, type: info.type };
}

/** "tb1qw508d6…kxpjzsx" → "tb1qw5…jzsx": enough to recognise an address in lists and on cards. */
export function shortAddress(address: string): string {
  return address.length <= 14 ? address : `${address.slice(0, 6)}…${address.slice(-4)}`;
}
