import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Redis keys are private to src/store: every key is built in src/store/keys.ts and read or written by a repository,
 * and callers name what they want through its methods. The events pipeline's BullMQ queues name their own keys
 * (src/events/keys.ts), so src/events is not checked here.
 *
 * A file outside src/store builds a Redis key when one of its string or template literals (comments aside) is
 *  - a fixed key of keys.ts ("orders:open"), or
 *  - a template that starts with the fixed part of a key template of keys.ts and then an interpolation
 *    (`order:${…}`, `plink:feedstage:${…}`): the key prefixes KEY_PREFIXES lists;
 * or when it imports `keys` from the store.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const KEYS_FILE = "src/store/keys.ts";
const CHECKED = (file: string) => !file.startsWith("src/store/") && !file.startsWith("src/events/");

/**
 * Literals that look like a key but are not one: the ids of money actions, which runOnce (src/store/idempotency.ts)
 * stores under `idem:<scope>:<action id>` — a request paid from its card, a repeat's quote.
 */
const NOT_KEYS = new Set([
  "src/bot/payout/requests/pay.ts: request:{}:{}:{}",
  "src/bot/payout/conversation.ts: repeat:{}",
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every string and template literal of a file, each interpolation written `{}`. */
function literalsOf(file: string, source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    else if (ts.isTemplateExpression(node)) {
      found.push(node.head.text + node.templateSpans.map((span) => `{}${span.literal.text}`).join(""));
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
  return found;
}

/** The keys of keys.ts: its fixed keys, and the fixed part before the first interpolation of each template. */
function keysOfStore(): { fixed: Set<string>; prefixes: Set<string> } {
  const fixed = new Set<string>();
  const prefixes = new Set<string>();
  for (const literal of literalsOf(KEYS_FILE, readFileSync(join(ROOT, KEYS_FILE), "utf8"))) {
    if (!/^[a-z][a-z-]*:/.test(literal)) continue;
    const hole = literal.indexOf("{}");
    if (hole < 0) fixed.add(literal);
    else prefixes.add(literal.slice(0, hole));
  }
  fixed.add("audit");
  return { fixed, prefixes };
}

const { fixed: FIXED_KEYS, prefixes: KEY_PREFIXES } = keysOfStore();

function buildsKey(literal: string): boolean {
  if (FIXED_KEYS.has(literal)) return true;
  return [...KEY_PREFIXES].some((prefix) => literal.startsWith(`${prefix}{}`));
}

describe("Redis keys are built in src/store only", () => {
  it("knows the store's keys", () => {
    expect(FIXED_KEYS).toContain("orders:open");
    expect(KEY_PREFIXES).toContain("order:");
    expect(KEY_PREFIXES).toContain("plink:feedstage:");
    expect(buildsKey("order:{}")).toBe(true);
    expect(buildsKey("user:{}:orders")).toBe(true);
    expect(buildsKey("settings:maintenance")).toBe(true);
    // Translation keys share some namespaces with Redis keys: only a key's own shape counts.
    expect(buildsKey("refund:line.{}")).toBe(false);
    expect(buildsKey("ratealert:removed")).toBe(false);
  });

  it("no file outside src/store builds a key", () => {
    const files = sourceFiles("src").filter(CHECKED);
    expect(files.length).toBeGreaterThan(100);
    const building = files.flatMap((file) =>
      literalsOf(file, readFileSync(join(ROOT, file), "utf8"))
        .filter(buildsKey)
        .map((literal) => `${file}: ${literal}`),
    );
    expect(building.filter((found) => !NOT_KEYS.has(found))).toEqual([]);
    // Each exception is still there (a stale one would hide nothing, and say something untrue).
    expect([...NOT_KEYS].filter((known) => !building.includes(known))).toEqual([]);
  });

  it("no file outside src/store imports the key builders", () => {
    const importing = sourceFiles("src")
      .filter(CHECKED)
      .filter((file) =>
        /import\s*(?:type\s*)?\{[^}]*\bkeys\b[^}]*\}\s*from\s*"#src\/store\//.test(
          readFileSync(join(ROOT, file), "utf8"),
        ),
      );
    expect(importing).toEqual([]);
  });
});
