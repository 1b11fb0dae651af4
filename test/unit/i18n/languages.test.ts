import { describe, expect, it } from "vitest";
import { intlLocale, LANGUAGES, normalizeLanguage, resolveLanguage } from "#src/i18n/languages.js";

describe("normalizeLanguage", () => {
  it("answers every code we ship as itself", () => {
    for (const { code } of LANGUAGES) expect(normalizeLanguage(code)).toBe(code);
  });

  it("reads Telegram's and the API's spellings: case, region suffixes, underscores, spaces", () => {
    expect(normalizeLanguage("en-GB")).toBe("en");
    expect(normalizeLanguage("FR")).toBe("fr");
    expect(normalizeLanguage("sw_KE")).toBe("sw");
    expect(normalizeLanguage(" Yo-NG ")).toBe("yo");
    expect(normalizeLanguage("PCM")).toBe("pcm");
  });

  it("knows the languages by their names where the name is not the code", () => {
    expect(normalizeLanguage("twi")).toBe("ak");
    expect(normalizeLanguage("Tw")).toBe("ak");
    expect(normalizeLanguage("Pidgin")).toBe("pcm");
    expect(normalizeLanguage("swahili")).toBe("sw");
    expect(normalizeLanguage("zulu-ZA")).toBe("zu");
  });

  it("answers undefined for what we do not ship or nothing at all", () => {
    expect(normalizeLanguage("de")).toBeUndefined();
    expect(normalizeLanguage("pt-BR")).toBeUndefined();
    expect(normalizeLanguage("")).toBeUndefined();
    expect(normalizeLanguage(undefined)).toBeUndefined();
    expect(normalizeLanguage(null)).toBeUndefined();
    expect(normalizeLanguage("constructor")).toBeUndefined();
  });
});

describe("resolveLanguage", () => {
  it("prefers the user's choice, then Telegram's language, then the account's, then English", () => {
    expect(resolveLanguage({ chosen: "ha", telegram: "fr", account: "sw" })).toBe("ha");
    expect(resolveLanguage({ chosen: "de", telegram: "fr-FR", account: "sw" })).toBe("fr");
    expect(resolveLanguage({ telegram: "de", account: "SW" })).toBe("sw");
    expect(resolveLanguage({ telegram: "de", account: "xx" })).toBe("en");
    expect(resolveLanguage({})).toBe("en");
  });
});

describe("intlLocale", () => {
  it("gives each language the locale its numbers and dates are written in", () => {
    for (const { code, intl } of LANGUAGES) expect(intlLocale(code)).toBe(intl);
    expect(intlLocale("pcm")).toBe("en-NG");
    expect(intlLocale("ak")).toBe("ak-GH");
  });
});
