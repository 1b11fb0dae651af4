import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import i18next, { type i18n as I18n, type TFunction } from "i18next";
import type { Logger } from "#src/log/logger.js";
import { compiledT } from "./compiled-t.ts";
import { DEFAULT_LANGUAGE, LANGUAGES, type LanguageCode } from "./languages.ts";

export type { TFunction } from "i18next";
export * from "./languages.ts";
export * from "./quote.ts";

export const DEFAULT_LOCALES_DIR = fileURLToPath(new URL("../../locales", import.meta.url));

/** Every namespace is one JSON file per language: locales/<lng>/<namespace>.json. */
export function loadResources(localesDir: string): Record<string, Record<string, unknown>> {
  const resources: Record<string, Record<string, unknown>> = {};
  for (const { code } of LANGUAGES) {
    const dir = join(localesDir, code);
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((file) => file.endsWith(".json"));
    } catch {
      continue;
    }
    const namespaces: Record<string, unknown> = {};
    for (const file of files) {
      namespaces[file.replace(/\.json$/, "")] = JSON.parse(readFileSync(join(dir, file), "utf8"));
    }
    resources[code] = namespaces;
  }
  return resources;
}

export interface Translator {
  i18n: I18n;
  /** A t() bound to one language. */
  t(language: LanguageCode): TFunction;
}

/**
 * One i18next instance for the process. A missing key falls back to English and is logged once, never shown raw:
 * if English lacks it too, the user sees a neutral placeholder instead of the key.
 */
export async function createTranslator(options: {
  logger: Logger;
  localesDir?: string;
  /**
   * SUPPORT_CONTACT as shown (plain text: config refuses characters HTML would need escaped). It replaces
   * `refund:support.contact` in every language; strings that mention support nest `$t(refund:support.contact)`,
   * so unset, each language's own wording ("the operator of this bot") is used.
   */
  supportContact?: string;
}): Promise<Translator> {
  const resources = loadResources(options.localesDir ?? DEFAULT_LOCALES_DIR);
  const namespaces = Object.keys(resources[DEFAULT_LANGUAGE] ?? {});
  const reported = new Set<string>();
  const instance = i18next.createInstance();
  await instance.init({
    resources: resources as never,
    lng: DEFAULT_LANGUAGE,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: LANGUAGES.map((language) => language.code),
    ns: namespaces,
    defaultNS: "common",
    nsSeparator: ":",
    keySeparator: ".",
    interpolation: { escapeValue: false },
    returnNull: false,
    saveMissing: true,
    missingKeyHandler: (languages, namespace, key) => {
      const id = `${languages.join(",")}:${namespace}:${key}`;
      if (reported.has(id)) return;
      reported.add(id);
      options.logger.warn({ languages, namespace, key }, "i18n key missing");
    },
    parseMissingKeyHandler: (key) => {
      options.logger.error({ key }, "i18n key missing in English too");
      return "…";
    },
  });
  if (options.supportContact) {
    for (const { code } of LANGUAGES) {
      instance.addResource(code, "refund", "support.contact", options.supportContact);
    }
  }
  reportIncompleteLocales(resources, options.logger);
  const bound = new Map<LanguageCode, TFunction>();
  return {
    i18n: instance,
    t: (language) => {
      let t = bound.get(language);
      if (!t) {
        t = compiledT(instance, language, instance.getFixedT(language));
        bound.set(language, t);
      }
      return t;
    },
  };
}

/** Escape text for Telegram's HTML parse mode (user input and API values shown inside our messages). */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Every key path of a nested resource object ("payout:quote.title"). */
export function flattenKeys(resource: unknown, prefix = ""): string[] {
  if (typeof resource !== "object" || resource === null) return [prefix];
  return Object.entries(resource as Record<string, unknown>).flatMap(([key, value]) =>
    flattenKeys(value, prefix ? `${prefix}.${key}` : key),
  );
}

/** Plural suffixes differ by language (Yorùbá has only "other", Arabic six), so compare plural keys by base. */
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

/**
 * A key missing in a language falls back to English at runtime; say so once at start, per language, so the gap is
 * visible in the logs without a log line per message.
 */
function reportIncompleteLocales(resources: Record<string, Record<string, unknown>>, logger: Logger): void {
  const english = new Set(
    Object.entries(resources[DEFAULT_LANGUAGE] ?? {}).flatMap(([namespace, tree]) =>
      flattenKeys(tree).map((key) => `${namespace}:${key.replace(PLURAL_SUFFIX, "")}`),
    ),
  );
  for (const { code } of LANGUAGES) {
    if (code === DEFAULT_LANGUAGE) continue;
    const present = new Set(
      Object.entries(resources[code] ?? {}).flatMap(([namespace, tree]) =>
        flattenKeys(tree).map((key) => `${namespace}:${key.replace(PLURAL_SUFFIX, "")}`),
      ),
    );
    const missing = [...english].filter((key) => !present.has(key));
    if (missing.length > 0) {
      logger.warn(
        { language: code, count: missing.length, sample: missing.slice(0, 10) },
        "i18n keys missing; English is used",
      );
    }
  }
}
