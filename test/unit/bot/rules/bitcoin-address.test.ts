import { describe, expect, it } from "vitest";
import {
  addressPrefixesText,
  checkBitcoinAddress,
  normaliseAddressInput,
  shortAddress,
} from "#src/bot/rules/bitcoin-address.js";
import { createTranslator, type LanguageCode } from "#src/i18n/index.js";
import { createLogger } from "#src/log/logger.js";

const MAINNET = {
  p2pkh: "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
  p2sh: "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
  p2wpkh: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
  p2tr: "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297",
};
const TESTNET = {
  p2pkh_m: "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn",
  p2pkh_n: "n3GNqMveyvaPvUbH469vDRadqpJMPc84JA",
  p2sh: "2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc",
  p2wpkh: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
  p2wsh: "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
  p2tr: "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c",
};
const REGTEST = "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw";

describe("bitcoin address check per network", () => {
  it.each(Object.entries(MAINNET))("mainnet accepts its %s address", (type, address) => {
    const check = checkBitcoinAddress(address, "mainnet");
    expect(check).toEqual({ ok: true, address, network: "mainnet", type: type });
  });

  it.each(Object.entries(TESTNET))("signet and testnet accept the testnet %s address", (_type, address) => {
    for (const network of ["signet", "testnet"] as const) {
      const check = checkBitcoinAddress(address, network);
      expect(check.ok, `${address} on ${network}`).toBe(true);
      if (check.ok) expect(check.network).toBe("testnet");
    }
  });

  it.each(Object.values(MAINNET))("signet refuses the mainnet address %s as wrong network", (address) => {
    expect(checkBitcoinAddress(address, "signet")).toEqual({
      ok: false,
      reason: "wrong_network",
      found: "mainnet",
    });
    expect(checkBitcoinAddress(address, "testnet")).toEqual({
      ok: false,
      reason: "wrong_network",
      found: "mainnet",
    });
  });

  it.each(Object.values(TESTNET))("mainnet refuses the testnet address %s as wrong network", (address) => {
    expect(checkBitcoinAddress(address, "mainnet")).toEqual({
      ok: false,
      reason: "wrong_network",
      found: "testnet",
    });
  });

  it("refuses regtest addresses on every configured network", () => {
    for (const network of ["mainnet", "testnet", "signet"] as const) {
      expect(checkBitcoinAddress(REGTEST, network)).toEqual({
        ok: false,
        reason: "wrong_network",
        found: "regtest",
      });
    }
  });

  it("refuses a mistyped address (checksum) and things that are not addresses", () => {
    // one character changed in a valid address breaks its checksum
    expect(checkBitcoinAddress("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsy", "signet")).toMatchObject({
      ok: false,
      reason: "malformed",
    });
    expect(checkBitcoinAddress("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3", "mainnet")).toMatchObject({
      ok: false,
      reason: "malformed",
    });
    for (const text of ["hello", "0149200000", "bc1", "tb1qqqq", "🙂"]) {
      expect(checkBitcoinAddress(text, "signet"), text).toMatchObject({ ok: false, reason: "malformed" });
    }
    expect(checkBitcoinAddress("   ", "mainnet")).toEqual({ ok: false, reason: "empty" });
  });

  it("tells Lightning invoices and addresses apart from on-chain ones", () => {
    expect(checkBitcoinAddress("lntbs60160n1p5dmrdppp5abc", "signet")).toEqual({
      ok: false,
      reason: "lightning",
    });
    expect(checkBitcoinAddress("lightning:lnbc1500n1pabc", "mainnet")).toEqual({
      ok: false,
      reason: "lightning",
    });
    expect(checkBitcoinAddress("satoshi@getalby.com", "mainnet")).toEqual({ ok: false, reason: "lightning" });
  });

  it("refuses segwit versions that are not spendable standard types", () => {
    expect(checkBitcoinAddress("bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "mainnet")).toEqual({
      ok: false,
      reason: "unsupported_type",
      found: "mainnet",
    });
  });

  it("unwraps BIP21 URIs, spaces and upper-case bech32 (QR codes)", () => {
    expect(normaliseAddressInput(" bitcoin:tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx?amount=0.001 ")).toBe(
      TESTNET.p2wpkh,
    );
    const upper = checkBitcoinAddress("BITCOIN:BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ", "mainnet");
    expect(upper).toMatchObject({ ok: true, address: MAINNET.p2wpkh });
    // base58 is case-sensitive: it is never lower-cased
    expect(normaliseAddressInput(MAINNET.p2pkh)).toBe(MAINNET.p2pkh);
  });

  it("shortens addresses for cards and lists", () => {
    expect(shortAddress(TESTNET.p2wpkh)).toBe("tb1qw5…jzsx");
    expect(shortAddress("short")).toBe("short");
  });
});

describe("address prefixes in the reader's language", () => {
  it("joins the prefixes with the locale's own word for “or” (the French prompt said “… or 2…”)", async () => {
    const translator = await createTranslator({ logger: createLogger({ level: "silent", pretty: false }) });
    const list = (language: LanguageCode, network: "mainnet" | "signet") =>
      addressPrefixesText(network, translator.t(language));
    expect(list("en", "signet")).toBe("tb1…, m…, n… or 2…");
    expect(list("fr", "signet")).toBe("tb1…, m…, n… ou 2…");
    expect(list("es", "mainnet")).toBe("bc1…, 1… o 3…");
    expect(list("zu", "signet")).toBe("tb1…, m…, n… noma 2…");
    const prompt = translator.t("fr")("buy:address.prompt", {
      network: "Bitcoin signet",
      prefixes: list("fr", "signet"),
    });
    // The list ends the sentence: its last "…" is the stop (a "." after it wrapped onto a line of its own).
    expect(prompt).toMatch(/Elle commence par tb1…, m…, n… ou 2…$/);
    expect(prompt).not.toMatch(/\bor\b/);
  });
});
