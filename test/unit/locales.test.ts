import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_LOCALES_DIR, LANGUAGES } from "#src/i18n/index.js";

/**
 * Every locale has exactly English's keys (plural forms compared by their base key, since languages have different
 * plural categories), the same nesting, and the same interpolation variables in every string.
 */
type Tree = { [key: string]: string | Tree };
const PLURAL = /_(zero|one|two|few|many|other)$/;

function readLocale(code: string): Record<string, Tree> {
  const dir = join(DEFAULT_LOCALES_DIR, code);
  const namespaces: Record<string, Tree> = {};
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".json"))) {
    namespaces[file.replace(/\.json$/, "")] = JSON.parse(readFileSync(join(dir, file), "utf8")) as Tree;
  }
  return namespaces;
}

/** key → { variables, kind } with plural suffixes folded into their base key. */
function shape(
  namespaces: Record<string, Tree>,
): Map<string, { variables: string; kind: "string" | "object" }> {
  const out = new Map<string, { variables: string; kind: "string" | "object" }>();
  const walk = (tree: Tree, prefix: string) => {
    for (const [key, value] of Object.entries(tree)) {
      const path = `${prefix}.${key.replace(PLURAL, "")}`;
      if (typeof value === "string") {
        const variables = [...value.matchAll(/\{\{\s*([\w.]+)\s*(?:,[^}]*)?\}\}/g)]
          .map((match) => match[1])
          .sort();
        const previous = out.get(path);
        const merged = new Set([...(previous?.variables.split(",").filter(Boolean) ?? []), ...variables]);
        out.set(path, { variables: [...merged].sort().join(","), kind: "string" });
      } else {
        out.set(path, { variables: "", kind: "object" });
        walk(value, path);
      }
    }
  };
  for (const [namespace, tree] of Object.entries(namespaces)) walk(tree, namespace);
  return out;
}

const english = shape(readLocale("en"));

/** Keys that English writes as plural forms ("admin.broadcast.confirm" for confirm_one/confirm_other). */
function pluralBases(namespaces: Record<string, Tree>): { plural: Set<string>; plain: Set<string> } {
  const plural = new Set<string>();
  const plain = new Set<string>();
  const walk = (tree: Tree, prefix: string) => {
    for (const [key, value] of Object.entries(tree)) {
      if (typeof value !== "string") walk(value, `${prefix}.${key}`);
      else if (PLURAL.test(key)) plural.add(`${prefix}.${key.replace(PLURAL, "")}`);
      else plain.add(`${prefix}.${key}`);
    }
  };
  for (const [namespace, tree] of Object.entries(namespaces)) walk(tree, namespace);
  return { plural, plain };
}
const englishPlurals = pluralBases(readLocale("en")).plural;

describe("locales", () => {
  it("English has strings", () => {
    expect(english.size).toBeGreaterThan(100);
  });

  for (const { code } of LANGUAGES.filter((language) => language.code !== "en")) {
    it(`${code} has exactly English's keys, nesting and interpolation variables`, () => {
      const other = shape(readLocale(code));
      const missing = [...english.keys()].filter((key) => !other.has(key));
      const extra = [...other.keys()].filter((key) => !english.has(key));
      const mismatched = [...english.entries()]
        .filter(([key, value]) => {
          const theirs = other.get(key);
          return theirs && (theirs.kind !== value.kind || theirs.variables !== value.variables);
        })
        .map(([key, value]) => `${key}: en {${value.variables}} vs ${code} {${other.get(key)?.variables}}`);
      expect({ missing, extra, mismatched }).toEqual({ missing: [], extra: [], mismatched: [] });
    });

    it(`${code} writes plural forms wherever English does (no stale singular key)`, () => {
      const { plain } = pluralBases(readLocale(code));
      expect([...englishPlurals].filter((key) => plain.has(key))).toEqual([]);
    });

    it(`${code} uses the plural categories its language needs`, () => {
      const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
      const tree = readLocale(code);
      const problems: string[] = [];
      const walk = (node: Tree, prefix: string) => {
        const bases = new Map<string, Set<string>>();
        for (const [key, value] of Object.entries(node)) {
          const match = key.match(PLURAL);
          if (match) {
            const base = key.replace(PLURAL, "");
            bases.set(base, (bases.get(base) ?? new Set()).add(match[1]!));
          } else if (typeof value !== "string") walk(value, `${prefix}.${key}`);
        }
        for (const [base, present] of bases) {
          for (const category of categories) {
            if (!present.has(category)) problems.push(`${prefix}.${base}_${category}`);
          }
        }
      };
      for (const [namespace, node] of Object.entries(tree)) walk(node, namespace);
      expect(problems).toEqual([]);
    });
  }
});
