import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { longFunctions } from "./architecture/functions.ts";
import {
  importCircles,
  importGraph,
  importsOf as loadImportsOf,
  productImports,
} from "./architecture/imports.ts";
import { stalePaths } from "./architecture/paths.ts";
import { keyShapesOf, redisKeysBuilt } from "./architecture/redis-keys.ts";
import { commentsOf } from "./architecture/source.ts";
import { callsOf } from "./architecture/status-card.ts";

/**
 * The shape of src/ (docs/architecture.md), checked on the source so it stays true: products in src/bot do not import
 * each other, files and functions stay small, imports close no circle, Redis keys are built only in src/store, the
 * process's composition reaches the products through their registry, one module sends an order's status card, the
 * stand-ins for the outside world are loaded only by the process wiring, and no comment or doc names a path that is
 * not there. Each checker is a pure function in test/unit/architecture/, seen to fail on a planted example below
 * before it runs over the real tree.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = join(ROOT, "src");

/** The product folders of src/bot: each may use flow/, rules/ and the bot's root modules, never another product. */
const PRODUCTS = ["account", "buy", "merchant", "ops", "payout", "refund"];
/** Below the products: the flow kernel and the rules several products share. */
const SHARED = ["flow", "rules"];
/** Bot modules that put the products together (only these may import every product). */
const COMPOSITION = ["src/bot/create-bot.ts", "src/bot/features.ts", "src/bot/recovery.ts"];

const MAX_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/**
 * The modules of the process's composition that may import from inside a product folder: the products' registry
 * only (today src/bot/features.ts; registry.ts beside it if it takes that name).
 */
const PRODUCT_REGISTRY = ["src/bot/features.ts", "src/bot/registry.ts"];
/** The process's composition, which reaches the products only through PRODUCT_REGISTRY. */
const COMPOSITION_ROOTS = ["src/app.ts"];

/**
 * The status card's renderer, and who may call it: the module that defines the card and its one owner on screen
 * (src/orders/messages.ts: every send and edit of an order's card, for the flows, the recovery sweep and the
 * events pipeline alike), plus the read-only views that reply with a copy of it and never record it (/history's
 * order view and /status). Anyone else wanting the card on screen asks the owner (showStatus, refreshStatus).
 */
const STATUS_CARD_FUNCTIONS = ["renderStatusCard"];
const STATUS_CARD_OWNERS = ["src/orders/status-card.ts", "src/orders/messages.ts"];
const STATUS_CARD_VIEWS = ["src/bot/account/history.ts", "src/bot/account/status.ts"];

/** Where comments are read for named paths, and the docs whose every named path must exist. */
const COMMENTED = ["src", "test", "bench"];
/** Paths that exist only after a run or a build (git-ignored outputs); prose may name what goes there. */
const GENERATED = ["bench/results/", "dist/"];
/** The specs beside the repository (../shared: spec/, data/, design/), which comments and docs cite. */
const SHARED_DIR = resolve(ROOT, "../shared");

/**
 * The one module that talks to Redis outside src/store: the process wiring (it waits for the connection and closes
 * it). BullMQ's connections (src/events/queue-bullmq.ts) are duplicates of the store's client and send no command
 * of ours.
 */
const REDIS_OUTSIDE_STORE = [/^src\/main\.ts$/];
const REDIS_COMMAND =
  /\bredis\s*\.\s*(?:get|set|del|exists|incr|decr|expire|pexpire|ttl|getdel|lpush|rpush|lpop|rpop|llen|lrange|ltrim|multi|pipeline|hget|hset|hgetall|hdel|sadd|srem|smembers|zadd|zrem|zrange|zrangebyscore|mget|eval|evalsha|ping|scan)\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(ROOT, path)] : [];
  });
}

const FILES = sourceFiles(SRC).sort();
const text = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** Import specifiers of a file (relative and #src/; static, type-only and dynamic), resolved to repo paths. */
function importsOf(file: string): string[] {
  const found: string[] = [];
  for (const match of text(file).matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+|#src\/[^"]+)"/g)) {
    const specifier = match[1]!;
    // "#src/<path>.js" is package.json's alias of src/<path>.ts.
    if (specifier.startsWith("#src/")) found.push(`src/${specifier.slice(5, -3)}.ts`);
    else found.push(relative(ROOT, resolve(dirname(join(ROOT, file)), specifier)));
  }
  return found;
}

/** "payout" for src/bot/payout/…, "flow" for src/bot/flow/…, undefined for the bot's root modules and elsewhere. */
function botFolderOf(file: string): string | undefined {
  return /^src\/bot\/([^/]+)\//.exec(file)?.[1];
}

const isProduct = (file: string) => PRODUCTS.includes(botFolderOf(file) ?? "");

/** "from → to" for every import of a file `from` selects that `forbidden` refuses. */
function importsWhere(from: (file: string) => boolean, forbidden: (file: string, target: string) => boolean) {
  return FILES.filter(from).flatMap((file) =>
    importsOf(file)
      .filter((target) => forbidden(file, target))
      .map((target) => `${file} → ${target}`),
  );
}

describe("architecture", () => {
  it("finds the source files it checks", () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(FILES).toContain("src/bot/flow/screen.ts");
  });

  it("no product folder of src/bot imports another", () => {
    expect(
      importsWhere(
        (file) => PRODUCTS.includes(botFolderOf(file) ?? ""),
        (file, target) => isProduct(target) && botFolderOf(target) !== botFolderOf(file),
      ),
    ).toEqual([]);
  });

  it("the flow kernel and the shared rules import no product and no composition module", () => {
    expect(
      importsWhere(
        (file) => SHARED.includes(botFolderOf(file) ?? ""),
        (_file, target) => isProduct(target) || COMPOSITION.includes(target),
      ),
    ).toEqual([]);
  });

  it("only the composition modules import the products from the bot's root", () => {
    expect(
      importsWhere(
        (file) => file.startsWith("src/bot/") && !botFolderOf(file) && !COMPOSITION.includes(file),
        (_file, target) => isProduct(target),
      ),
    ).toEqual([]);
  });

  it("the update inbox never imports the bot (it hands updates to whatever handler the composition gives it)", () => {
    expect(
      importsWhere(
        (file) => file.startsWith("src/updates/"),
        (_file, target) => target.startsWith("src/bot/"),
      ),
    ).toEqual([]);
  });

  it("the sandbox stands alone (it imports nothing from api, bot, events, store or money)", () => {
    expect(
      importsWhere(
        (file) => file.startsWith("src/standins/sandbox/"),
        (_file, target) => /^src\/(api|bot|events|store|money)\//.test(target),
      ),
    ).toEqual([]);
  });

  it(`no file in src is over ${MAX_LINES} lines`, () => {
    const long = FILES.filter((file) => text(file).split("\n").length - 1 > MAX_LINES);
    expect(long).toEqual([]);
  });

  it("nothing outside src/store sends Redis commands (except the process wiring)", () => {
    const offenders = FILES.filter(
      (file) =>
        !file.startsWith("src/store/") &&
        !REDIS_OUTSIDE_STORE.some((pattern) => pattern.test(file)) &&
        REDIS_COMMAND.test(text(file)),
    );
    expect(offenders).toEqual([]);
  });

  it("the bot gets no Redis client (it imports no ioredis)", () => {
    expect(FILES.filter((file) => file.startsWith("src/bot/") && /from "ioredis"/.test(text(file)))).toEqual(
      [],
    );
  });

  it("the stand-ins (sandbox, Telegram emulator, terminal chat) are loaded only by the process wiring", () => {
    const loaders = FILES.filter(
      (file) =>
        !file.startsWith("src/standins/") &&
        importsOf(file).some((target) => target.startsWith("src/standins/")),
    );
    expect(loaders).toEqual(["src/main.ts"]);
  });
});

/** Every file and folder of the repository (tracked or not yet added, ignored ones left out), without slashes at the end. */
function repositoryPaths(): Set<string> {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
  const paths = new Set<string>();
  if (existsSync(SHARED_DIR)) {
    for (const entry of readdirSync(SHARED_DIR, { recursive: true, encoding: "utf8" })) paths.add(entry);
  }
  for (const file of listed) {
    const parts = file.split("/");
    for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join("/"));
  }
  return paths;
}

function filesUnder(dir: string, extension: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((file) => !file.includes("node_modules") && !file.startsWith("bench/results"))
    .sort();
}

const KEY_SHAPES = keyShapesOf(text("src/store/keys.ts"));

describe("architecture checkers, each on a planted violation", () => {
  it("a Redis key built outside the store is found (template and plain string), a translation key is not", () => {
    const shapes = keyShapesOf(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: planted source text, not a template
      'export const keys = { order: (id: string) => `order:${id}`, open: () => "orders:open" };',
    );
    expect(shapes).toEqual({ prefixes: ["order:"], fixed: ["orders:open"] });
    const planted = [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: planted source text, not a template
      "// order:${id} in a comment is prose",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: planted source text, not a template
      "const key = `order:${orderId}`;",
      'const open = "orders:open";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: planted source text, not a template
      "const line = t(`order:line.${kind}`);",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: planted source text, not a template
      "const label = t(`order:${group}.${kind}`);",
      'const ask = t("order:ask");',
      'const joined = "order:" + orderId;',
      'import x from "order:thing";',
    ].join("\n");
    expect(redisKeysBuilt("src/bot/x.ts", planted, shapes)).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: planted source text, not a template
      "src/bot/x.ts:2 `order:${orderId}`",
      'src/bot/x.ts:3 "orders:open"',
      'src/bot/x.ts:7 "order:"',
    ]);
  });

  it("an import of a product's own module by the composition is found, the registry's is not", () => {
    expect(
      productImports(
        "src/app.ts",
        ["src/bot/features.ts", "src/bot/payout/feature.ts", "src/bot/context.ts", "src/store/index.ts"],
        ["payout"],
        PRODUCT_REGISTRY,
      ),
    ).toEqual(["src/app.ts → src/bot/payout/feature.ts"]);
  });

  it("a function over the limit is found in each form (declaration, expression, arrow, method)", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const planted = [
      `function declared() {\n${body(79)}\n}`,
      `const arrow = () => {\n${body(79)}\n};`,
      `const expression = function () {\n${body(79)}\n};`,
      `class C {\n  method() {\n${body(79)}\n  }\n}`,
      `function fits() {\n${body(78)}\n}`,
    ].join("\n");
    expect(
      longFunctions("src/x.ts", planted, 80).map((found) => found.replace(/^src\/x\.ts:\d+ /, "")),
    ).toEqual(["declared (81 lines)", "arrow (81 lines)", "expression (81 lines)", "method (81 lines)"]);
  });

  it("an import circle is found through static and type-only imports and re-exports, not through import()", () => {
    const files = new Map([
      ["src/a.ts", 'import { b } from "./b.ts";\nexport const a = b;'],
      ["src/b.ts", 'import type { C } from "#src/c.js";\nexport const b: C = 1;'],
      ["src/c.ts", 'export * from "./a.ts";\nexport type C = number;'],
      ["src/d.ts", 'export const d = () => import("./e.ts");'],
      ["src/e.ts", 'import { d } from "./d.ts";\nexport const e = d;'],
    ]);
    expect(importCircles(importGraph(files))).toEqual(["src/a.ts ↔ src/b.ts ↔ src/c.ts"]);
    expect(loadImportsOf("src/d.ts", files.get("src/d.ts")!, { dynamic: true })).toEqual(["src/e.ts"]);
  });

  it("a path that does not exist is found in a comment or a doc; patterns, folders and .js names of .ts files pass", () => {
    const existing = new Set([
      "src",
      "src/store",
      "src/store/keys.ts",
      "locales",
      "locales/en",
      "locales/en/payout.json",
    ]);
    const comments = commentsOf(
      "src/x.ts",
      [
        "/** Keys live in src/store/keys.ts (see src/store/, src/store/keys.js and locales/<lng>/payout.json). */",
        "const url = 'https://example.com/src/nowhere.ts';",
        "// Requests went through src/bot/requests, and locales/<lng>/gone.json.",
      ].join("\n"),
    ).join("\n");
    expect(stalePaths("src/x.ts", comments, existing)).toEqual([
      "src/x.ts: src/bot/requests",
      "src/x.ts: locales/<lng>/gone.json",
    ]);
    expect(
      stalePaths("docs/a.md", "See [keys](../src/store/keys.ts) and `docs/missing.md`.", existing),
    ).toEqual(["docs/a.md: docs/missing.md"]);
  });

  it("a second sender of the status card is found", () => {
    const planted = [
      'import { renderStatusCard } from "#src/orders/index.js";',
      "const card = renderStatusCard(order, t, locale);",
      "await orders.renderStatusCard(order, t, locale);",
      "const other = renderNotification(order);",
    ].join("\n");
    expect(callsOf("src/bot/x.ts", planted, STATUS_CARD_FUNCTIONS)).toEqual([
      "src/bot/x.ts:2 renderStatusCard",
      "src/bot/x.ts:3 renderStatusCard",
    ]);
  });
});

describe("architecture of the real tree", () => {
  it("no file outside src/store builds a Redis key (keys.ts's prefixes and fixed keys)", () => {
    expect(KEY_SHAPES.prefixes.length).toBeGreaterThan(20);
    const built = FILES.filter((file) => !file.startsWith("src/store/")).flatMap((file) =>
      redisKeysBuilt(file, text(file), KEY_SHAPES),
    );
    expect(built).toEqual([]);
    // Nor does any take the store's key builders to build one its own way.
    const importingKeys = FILES.filter(
      (file) =>
        !file.startsWith("src/store/") &&
        /import\s*(?:type\s*)?\{[^}]*\bkeys\b[^}]*\}\s*from\s*"[^"]*store\//.test(text(file)),
    );
    expect(importingKeys).toEqual([]);
  });

  it("the process's composition imports nothing inside a product but the registry", () => {
    const found = COMPOSITION_ROOTS.flatMap((file) =>
      productImports(file, loadImportsOf(file, text(file), { dynamic: true }), PRODUCTS, PRODUCT_REGISTRY),
    );
    expect(found).toEqual([]);
  });

  it(`no function in src is over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(FILES.flatMap((file) => longFunctions(file, text(file), MAX_FUNCTION_LINES))).toEqual([]);
  });

  it("imports among src files close no circle (static and type-only imports, re-exports)", () => {
    const graph = importGraph(new Map(FILES.map((file) => [file, text(file)])));
    expect(importCircles(graph)).toEqual([]);
  });

  it("every path a comment (src, test, bench) or a doc (README.md, docs/*.md) names exists", () => {
    const existing = repositoryPaths();
    const isGenerated = (finding: string) =>
      GENERATED.some((prefix) => finding.split(": ")[1]!.startsWith(prefix));
    const inComments = COMMENTED.flatMap((dir) => filesUnder(dir, ".ts")).flatMap((file) =>
      stalePaths(file, commentsOf(file, text(file)).join("\n"), existing),
    );
    const docs = ["README.md", ...filesUnder("docs", ".md")];
    const inDocs = docs.flatMap((file) => stalePaths(file, text(file), existing));
    expect([...inComments, ...inDocs].filter((finding) => !isGenerated(finding))).toEqual([]);
  });

  it("only the status card's owner sends or edits it (no other module calls its renderer but read-only views)", () => {
    const allowed = [...STATUS_CARD_OWNERS, ...STATUS_CARD_VIEWS];
    const senders = FILES.filter((file) => !allowed.includes(file)).flatMap((file) =>
      callsOf(file, text(file), STATUS_CARD_FUNCTIONS),
    );
    expect(senders).toEqual([]);
  });
});

describe("docs/architecture.md", () => {
  it("names only `it`s of this file next to its rules, and names them all", () => {
    const doc = text("docs/architecture.md").replace(/\s+/g, " ");
    const named = [...doc.matchAll(/`it\("(.*?)"\)`/g)].map((match) => match[1]!);
    const own = text("test/unit/architecture.test.ts");
    const defined = [
      ...[...own.matchAll(/\bit\(\s*"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!),
      ...[...own.matchAll(/\bit\(\s*`([^`]*)`/g)].map((match) =>
        match[1]!
          .replace(/\$\{MAX_LINES\}/, String(MAX_LINES))
          .replace(/\$\{MAX_FUNCTION_LINES\}/, String(MAX_FUNCTION_LINES)),
      ),
    ];
    const realTree = defined.filter((name) => !/found|finds the source files|names only/.test(name));
    expect(named.filter((name) => !defined.includes(name))).toEqual([]);
    expect(realTree.filter((name) => !named.includes(name))).toEqual([]);
  });
});
