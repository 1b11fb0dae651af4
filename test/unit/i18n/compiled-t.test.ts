import { describe, expect, it } from "vitest";
import { compiledT } from "#src/i18n/compiled-t.js";
import { createTranslator, flattenKeys, LANGUAGES, loadResources } from "#src/i18n/index.js";
import { silentLogger } from "#src/log/logger.js";

const PLACEHOLDER = /\{\{\s*-?\s*([A-Za-z0-9_]+)[^}]*\}\}/g;

/** Every key of every namespace of English, with the placeholder names its text has in any language. */
function everyKey(): Map<string, Set<string>> {
  const resources = loadResources(new URL("../../../locales", import.meta.url).pathname);
  const found = new Map<string, Set<string>>();
  for (const namespaces of Object.values(resources)) {
    for (const [namespace, tree] of Object.entries(namespaces)) {
      for (const path of flattenKeys(tree)) {
        const key = `${namespace}:${path}`;
        const names = found.get(key) ?? new Set<string>();
        const text = path
          .split(".")
          .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], tree);
        if (typeof text === "string")
          for (const match of text.matchAll(PLACEHOLDER)) names.add(match[1] as string);
        found.set(key, names);
      }
    }
  }
  return found;
}

describe("compiledT", () => {
  it("reads every key of every language exactly as i18next does, with and without values", async () => {
    const translator = await createTranslator({ logger: silentLogger(), supportContact: "@help_desk" });
    const keys = everyKey();
    expect(keys.size).toBeGreaterThan(500);
    let compared = 0;
    for (const { code } of LANGUAGES) {
      const ours = translator.t(code);
      const theirs = translator.i18n.getFixedT(code);
      for (const [key, names] of keys) {
        const values = Object.fromEntries(
          [...names].map((name, index) => [name, index % 2 ? 1_250 + index : `<${name}&>`]),
        );
        const plural = key.replace(/_(zero|one|two|few|many|other)$/, "");
        for (const options of [
          values,
          { ...values, unused: "u" },
          { ...values, count: 1 },
          { ...values, count: 7 },
        ]) {
          expect(ours(plural, options), `${code} ${plural} ${JSON.stringify(options)}`).toBe(
            theirs(plural, options),
          );
          // Twice: the second call is answered from what the first compiled.
          expect(ours(plural, options)).toBe(theirs(plural, options));
          compared += 1;
        }
        expect(ours(plural)).toBe(theirs(plural));
      }
    }
    expect(compared).toBeGreaterThan(10 * 500);
  });

  it("leaves to i18next what it cannot answer the same: a missing value, an object, an option i18next reads", async () => {
    const translator = await createTranslator({ logger: silentLogger() });
    const t = compiledT(translator.i18n, "en", translator.i18n.getFixedT("en"));
    const theirs = translator.i18n.getFixedT("en");
    for (const options of [
      {},
      { name: undefined },
      { name: { first: "Ada" } },
      { name: "Ada", lng: "fr" },
      { name: "Ada", extra: 1 },
    ]) {
      expect(t("common:welcome", options)).toBe(theirs("common:welcome", options));
    }
    expect(t("common:welcome", { name: "Ada" })).toContain("Hi Ada");
    expect(t("common:welcome", { name: "Bola" })).toContain("Hi Bola");
    expect(t("common:no_such_key", { name: "Ada" })).toBe(theirs("common:no_such_key", { name: "Ada" }));
  });

  it("answers most calls with values without i18next once a key is compiled", async () => {
    const translator = await createTranslator({ logger: silentLogger() });
    const theirs = translator.i18n.getFixedT("en");
    let reached = 0;
    const counted = ((...args: Parameters<typeof theirs>) => {
      reached += 1;
      return theirs(...args);
    }) as typeof theirs;
    const t = compiledT(translator.i18n, "en", counted);
    const withValues = [...everyKey()].filter(([key, names]) => names.size > 0 && !/_(one|other)$/.test(key));
    const call = ([key, names]: [string, Set<string>]) =>
      t(key, Object.fromEntries([...names].map((name) => [name, "x"])));
    withValues.forEach(call);
    reached = 0;
    withValues.forEach(call);
    // Nesting ($t), plural and context keys still go to i18next every time: a minority.
    expect(withValues.length).toBeGreaterThan(200);
    expect(reached).toBeLessThan(withValues.length / 4);
  });
});
