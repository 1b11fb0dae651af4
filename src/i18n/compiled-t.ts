import type { i18n as I18n, TFunction } from "i18next";

/**
 * A `t` of one language that does i18next's work once per key instead of on every call. Resources do not change
 * after start, so:
 * - a key called without options reads the same text every time: it is looked up once;
 * - a key whose text in this language has only plain `{{name}}` placeholders, called with values (text or
 *   numbers) for all of them and no option i18next reads itself, is split into parts once and filled in on each
 *   call — what i18next's interpolation does with `escapeValue: false`, without its lookup, fallback and regex
 *   passes (a status card makes a dozen such calls).
 * Everything else goes to i18next every time: plurals and contexts (`count`, `context`), nesting (`$t(…)`), a key
 * missing in this language (English fallback and its log line), a missing or non-scalar value, any other option.
 */
export function compiledT(instance: I18n, language: string, t: TFunction): TFunction {
  const translate = t as unknown as (...args: unknown[]) => unknown;
  const plain = new Map<string, string>();
  const templates = new Map<string, Template | undefined>();
  const defaultNs = defaultNamespace(instance);
  return ((key: unknown, ...rest: unknown[]) => {
    if (typeof key !== "string") return translate(key, ...rest);
    if (rest.length === 0) {
      let text = plain.get(key);
      if (text === undefined) {
        text = String(translate(key));
        plain.set(key, text);
      }
      return text;
    }
    const [options] = rest;
    if (rest.length !== 1 || !isPlainObject(options)) return translate(key, ...rest);
    let template = templates.get(key);
    if (!templates.has(key)) {
      template = compile(instance.getResource(language, ...splitKey(key, defaultNs)));
      templates.set(key, template);
    }
    return (template && fill(template, options)) ?? translate(key, options);
  }) as unknown as TFunction;
}

/** Literal text around each placeholder: parts[0] name[0] parts[1] name[1] … parts[n]. */
interface Template {
  parts: string[];
  names: string[];
}

const PLACEHOLDER = /\{\{([A-Za-z0-9_]+)\}\}/g;
/** Option names i18next reads itself (and `defaultValue_<plural form>`): a call carrying one is i18next's to answer. */
const I18NEXT_OPTIONS = new Set([
  "count",
  "context",
  "ordinal",
  "defaultValue",
  "lng",
  "lngs",
  "ns",
  "replace",
  "interpolation",
  "skipInterpolation",
  "returnObjects",
  "returnDetails",
  "joinArrays",
  "postProcess",
  "keyPrefix",
  "fallbackLng",
  "keySeparator",
  "nsSeparator",
  "appendNamespaceToMissingKey",
  "appendNamespaceToCIMode",
  "missingKeyNoValueFallbackToKey",
]);

function readByI18next(option: string): boolean {
  return I18NEXT_OPTIONS.has(option) || option.startsWith("defaultValue");
}

function compile(resource: unknown): Template | undefined {
  if (typeof resource !== "string" || resource.includes("$t(")) return undefined;
  const parts: string[] = [];
  const names: string[] = [];
  let last = 0;
  for (const match of resource.matchAll(PLACEHOLDER)) {
    const name = match[1] as string;
    if (readByI18next(name)) return undefined;
    parts.push(resource.slice(last, match.index));
    names.push(name);
    last = match.index + match[0].length;
  }
  const tail = resource.slice(last);
  // Anything else that looks like a placeholder ("{{ name }}", "{{value, number}}") is i18next's to read.
  if (parts.some((part) => part.includes("{{")) || tail.includes("{{")) return undefined;
  parts.push(tail);
  return { parts, names };
}

/**
 * The text with every placeholder filled, or undefined when the call is not one the template can answer. Values
 * the text does not use are ignored, as i18next ignores them.
 */
function fill(template: Template, options: Record<string, unknown>): string | undefined {
  for (const name in options) if (readByI18next(name)) return undefined;
  let text = template.parts[0] as string;
  for (let index = 0; index < template.names.length; index += 1) {
    const value = options[template.names[index] as string];
    if (typeof value !== "string" && typeof value !== "number") return undefined;
    text += String(value) + template.parts[index + 1];
  }
  return text;
}

function defaultNamespace(instance: I18n): string {
  const configured = instance.options.defaultNS;
  return (Array.isArray(configured) ? configured[0] : configured) || "translation";
}

/** "payout:quote.title" → ["payout", "quote.title"]; a key without a namespace is in the default one. */
function splitKey(key: string, defaultNs: string): [string, string] {
  const cut = key.indexOf(":");
  return cut < 0 ? [defaultNs, key] : [key.slice(0, cut), key.slice(cut + 1)];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
