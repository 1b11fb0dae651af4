import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PRODUCT_PORTS } from "#src/store/ports.js";

/**
 * Each product of src/bot uses only its port of the store (src/store/ports.ts): the members its modules name
 * (`deps.store.orders`, `ctx.deps.store.once`, `Pick<Store, "caches">`, `BotDeps["store"]["orders"]`).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The store members a source text names. */
function membersUsed(source: string): Set<string> {
  const used = new Set<string>();
  for (const match of source.matchAll(/\bstore\s*\.\s*([a-zA-Z]+)/g)) used.add(match[1]!);
  for (const match of source.matchAll(/\["store"\]\["([a-zA-Z]+)"\]/g)) used.add(match[1]!);
  for (const match of source.matchAll(/Pick<\s*Store\s*,([^>]+)>/g)) {
    for (const member of match[1]!.matchAll(/"([a-zA-Z]+)"/g)) used.add(member[1]!);
  }
  return used;
}

describe("store ports", () => {
  it("reads the members a module names", () => {
    const source = `deps.store.orders.get(); ctx.deps.store\n  .once.run(); x: Pick<Store, "caches" | "users">;`;
    expect([...membersUsed(`${source} BotDeps["store"]["quoteBudget"]`)].sort()).toEqual([
      "caches",
      "once",
      "orders",
      "quoteBudget",
      "users",
    ]);
  });

  for (const [product, port] of Object.entries(PRODUCT_PORTS)) {
    it(`src/bot/${product} uses its port, all of it`, () => {
      const used = new Set(
        sourceFiles(`src/bot/${product}`).flatMap((file) => [
          ...membersUsed(readFileSync(join(ROOT, file), "utf8")),
        ]),
      );
      const allowed: readonly string[] = port;
      expect([...used].filter((member) => !allowed.includes(member)).sort()).toEqual([]);
      // A member the product no longer uses leaves its port (the port says what the product needs, no more).
      expect(allowed.filter((member) => !used.has(member))).toEqual([]);
    });
  }
});
