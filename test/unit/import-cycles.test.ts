import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * No import circles in src/: every module can be read (and loaded) after the modules it imports. Type-only imports
 * count too — a circle of types is still two files that cannot be understood one without the other.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = join(ROOT, "src");

/**
 * Circles known and being taken apart, each as its files sorted: the order repository and the delivery claims
 * (each names the other's types), and a refund's start and its settlement (the settlement reads the start's deps).
 */
const KNOWN_CIRCLES = [
  "src/bot/ops/refund/refunds.ts ↔ src/bot/ops/refund/settlement.ts",
  "src/store/delivery-claims.ts ↔ src/store/orders.ts",
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(ROOT, path)] : [];
  });
}

/** Import and re-export specifiers of a file (relative and #src/; static, type-only, dynamic), as repo paths. */
function importsOf(file: string, source: string): string[] {
  const found = new Set<string>();
  for (const match of source.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+|#src\/[^"]+)"/g)) {
    const specifier = match[1]!;
    // "#src/<path>.js" is package.json's alias of src/<path>.ts.
    if (specifier.startsWith("#src/")) found.add(`src/${specifier.slice(5).replace(/\.js$/, ".ts")}`);
    else found.add(relative(ROOT, resolve(dirname(join(ROOT, file)), specifier)));
  }
  return [...found];
}

/** The strongly connected components of more than one file (Tarjan), each as its files sorted and joined. */
function circles(graph: Map<string, string[]>): string[] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort().join(" ↔ "));
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.sort();
}

describe("import circles", () => {
  it("finds a circle, and only a circle", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(circles(graph)).toEqual(["a ↔ b ↔ c"]);
    expect(
      circles(
        new Map([
          ["a", ["b"]],
          ["b", []],
        ]),
      ),
    ).toEqual([]);
  });

  it("src/ has none but the known ones", () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const graph = new Map(
      files.map((file) => [file, importsOf(file, readFileSync(join(ROOT, file), "utf8"))]),
    );
    expect(circles(graph).filter((circle) => !KNOWN_CIRCLES.includes(circle))).toEqual([]);
  });
});
