import { type ChildProcess, execFile, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freePort,
  type PrivateRedis,
  privateServerArgs,
  startPrivateRedis,
} from "#src/standins/local/redis-server.js";
import { createStore } from "#src/store/index.js";
import { ngnOrder } from "../support/store-fixtures.ts";

/**
 * deploy/redis/backup.sh and restore.sh on real redis-servers: the bot's data written through its store is backed
 * up over the network, restored into a fresh data directory, and read back by the store from a Redis configured as
 * production's is (AOF on) — which ignores a backup merely copied into its directory, as the last test shows.
 */
const SCRIPTS = fileURLToPath(new URL("../../deploy/redis/", import.meta.url));
const run = promisify(execFile);
/** The bot's database in compose is /0; another one here shows the whole keyspace travels. */
const DB = 5;

/** A redis-server on `dir` with AOF on, as compose.yaml runs production's. */
async function startProductionLike(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn("redis-server", [...privateServerArgs(port, dir), "--appendonly", "yes"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}):\n${output}`)));
  });
  return { url: `redis://127.0.0.1:${port}/${DB}`, stop: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

describe("Redis backups (deploy/redis)", () => {
  let source: PrivateRedis;
  let work: string;
  let backup: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "payout-backup-"));
    source = await startPrivateRedis();
    const redis = new Redis(`${source.url}/${DB}`);
    // A replica's first sync (what --rdb is) waits 5 s by default for more replicas to share it; not here.
    await redis.config("SET", "repl-diskless-sync-delay", "0");
    const store = createStore(redis);
    await store.users.touch({ id: 42, firstName: "Ada", username: "ada_o", telegramLanguage: "yo" });
    await store.users.update(42, { language: "yo" });
    await store.orders.create(ngnOrder("backup-order-1"));
    await redis.quit();
  });
  afterAll(async () => {
    await source?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("backup.sh writes a checked RDB file and keeps only the newest KEEP", async () => {
    const dir = join(work, "backups");
    mkdirSync(dir);
    // Older backups by name (the time is in it): two of the three go.
    for (const old of ["20240101T000000Z", "20240102T000000Z", "20240103T000000Z"])
      writeFileSync(join(dir, `payout-bot-redis-${old}.rdb`), "old");
    const { stdout } = await run("bash", [join(SCRIPTS, "backup.sh"), `${source.url}/${DB}`, dir], {
      env: { ...process.env, KEEP: "2" },
    });
    backup = stdout.trim();
    expect(backup).toMatch(/\/payout-bot-redis-\d{8}T\d{6}Z\.rdb$/);
    expect(readdirSync(dir).sort()).toEqual([
      "payout-bot-redis-20240103T000000Z.rdb",
      backup.slice(dir.length + 1),
    ]);
    await run("redis-check-rdb", [backup]);
  });

  it("restore.sh puts it into a fresh Redis with AOF on, where the bot's store reads it back", async () => {
    const data = join(work, "restored");
    const { stdout } = await run("bash", [join(SCRIPTS, "restore.sh"), backup, data]);
    expect(stdout).toContain(`db${DB}:keys=`);

    const restored = await startProductionLike(data);
    const redis = new Redis(restored.url);
    try {
      const store = createStore(redis);
      expect(await store.users.get(42)).toMatchObject({
        firstName: "Ada",
        username: "ada_o",
        language: "yo",
      });
      const order = await store.orders.get("backup-order-1");
      expect(order).toMatchObject({
        userId: 42,
        pay: { amount: 12_000, currency: "BTCSAT" },
        receive: { amount: 1_000_000, currency: "NGNKOBO" },
      });
      expect((await store.orders.findByHash("h-backup-order-1"))?.orderId).toBe("backup-order-1");
      expect((await store.orders.listForUser(42, 0, 10)).orders.map((o) => o.orderId)).toEqual([
        "backup-order-1",
      ]);
      expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
    } finally {
      await redis.quit();
      await restored.stop();
    }
  });

  it("a backup only copied into the directory of a Redis with AOF on is ignored (why restore.sh exists)", async () => {
    const data = join(work, "copied");
    mkdirSync(data);
    copyFileSync(backup, join(data, "dump.rdb"));
    const naive = await startProductionLike(data);
    const redis = new Redis(naive.url);
    try {
      expect(await createStore(redis).users.get(42)).toBeUndefined();
      expect(await redis.dbsize()).toBe(0);
    } finally {
      await redis.quit();
      await naive.stop();
    }
  });
});
