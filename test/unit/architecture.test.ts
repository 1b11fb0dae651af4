import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The shape of src/ (docs/architecture.md, "Where things live"), checked on the source text so it stays true:
 * products in src/bot do not import each other, files stay small, Redis is reached through src/store, and the
 * stand-ins for the outside world are loaded only by the process wiring.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = join(ROOT, "src");

/** The product folders of src/bot: each may use flow/, rules/ and the bot's root modules, never another product. */
const PRODUCTS = ["account", "buy", "merchant", "ops", "payout", "refund"];
/** Below the products: the flow kernel and the rules several products share. */
const SHARED = ["flow", "rules"];
/** Bot modules that put the products together (only these may import every product). */
const COMPOSITION = ["src/bot/create-bot.ts", "src/bot/features.ts", "src/bot/recovery.ts"];

const MAX_LINES = 300;

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
