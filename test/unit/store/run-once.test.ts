import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMemoryRedis } from "#src/standins/local/memory-redis.js";
import { InFlightError, keys, ProcessRegistry, type RunContext, runOnce } from "#src/store/index.js";
import { freshRedis } from "../../support/redis.ts";

/** A pending action that only finishes when told to (a process that dies mid-action never tells it). */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

// The claim scripts run on real Redis and on local mode's in-memory stand-in (ioredis-mock's Lua).
describe.each([
  ["redis-server", () => freshRedis()],
  ["in-memory stand-in", () => createMemoryRedis()],
] as const)("runOnce on %s", (_name, connect) => {
  let redis: Redis;

  beforeAll(async () => {
    redis = await connect();
  });
  beforeEach(async () => {
    await redis.flushdb();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("stores the first result and names the owner in the pending claim", async () => {
    const owner = new ProcessRegistry(redis);
    await owner.start();
    const held = gate();
    const first = runOnce(
      redis,
      "quote",
      "k1",
      async () => {
        await held.opened;
        return { n: 1 };
      },
      { processes: owner, takeover: true },
    );
    await expect.poll(() => redis.get(keys.idempotency("quote", "k1"))).toContain(owner.id);
    const pending = JSON.parse((await redis.get(keys.idempotency("quote", "k1")))!) as Record<
      string,
      unknown
    >;
    expect(pending).toMatchObject({ state: "pending", owner: owner.id });
    held.open();
    expect(await first).toEqual({ n: 1 });
    expect(await runOnce(redis, "quote", "k1", async () => ({ n: 2 }))).toEqual({ n: 1 });
    await owner.stop();
  });

  it("refuses a live owner's pending claim (another process, or the same one) with InFlightError", async () => {
    const owner = new ProcessRegistry(redis);
    const other = new ProcessRegistry(redis);
    await owner.start();
    await other.start();
    const held = gate();
    const first = runOnce(redis, "quote", "k2", () => held.opened.then(() => "made"), {
      processes: owner,
      takeover: true,
    });
    await expect.poll(() => redis.exists(keys.idempotency("quote", "k2"))).toBe(1);
    let ran = 0;
    const attempt = (processes: ProcessRegistry) =>
      runOnce(
        redis,
        "quote",
        "k2",
        async () => {
          ran += 1;
          return "again";
        },
        { processes, takeover: true, settleMs: 0 },
      );
    await expect(attempt(other)).rejects.toBeInstanceOf(InFlightError);
    await expect(attempt(owner)).rejects.toBeInstanceOf(InFlightError);
    expect(ran).toBe(0);
    held.open();
    expect(await first).toBe("made");
    await owner.stop();
    await other.stop();
  });

  it("lets exactly one of two concurrent takers run a dead owner's action, told it is a takeover", async () => {
    const dead = new ProcessRegistry(redis);
    await dead.start();
    // The dead process's action never finishes; its heartbeat disappears as on a SIGKILL (after its TTL).
    void runOnce(redis, "quote", "k3", () => new Promise<string>(() => undefined), {
      processes: dead,
      takeover: true,
    });
    await expect.poll(() => redis.exists(keys.idempotency("quote", "k3"))).toBe(1);
    await dead.stop();

    const takers = [new ProcessRegistry(redis), new ProcessRegistry(redis)];
    for (const taker of takers) await taker.start();
    const runs: RunContext[] = [];
    const settled = await Promise.allSettled(
      takers.map((processes, index) =>
        runOnce(
          redis,
          "quote",
          "k3",
          async (run) => {
            runs.push(run);
            return `taken by ${index}`;
          },
          { processes, takeover: true, settleMs: 0 },
        ),
      ),
    );
    expect(runs).toEqual([{ takeover: true }]);
    const won = settled.filter((result) => result.status === "fulfilled");
    const lost = settled.filter((result) => result.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(InFlightError);
    // The taker's result is the key's result from now on.
    const winner = (won[0] as PromiseFulfilledResult<string>).value;
    expect(await runOnce(redis, "quote", "k3", async () => "never")).toBe(winner);
    for (const taker of takers) await taker.stop();
  });

  it("never takes over without the caller's consent, nor a claim naming no owner", async () => {
    const dead = new ProcessRegistry(redis);
    await dead.start();
    void runOnce(redis, "confirm", "k4", () => new Promise<string>(() => undefined), { processes: dead });
    void runOnce(redis, "quote", "k5", () => new Promise<string>(() => undefined));
    await expect.poll(() => redis.exists(keys.idempotency("confirm", "k4"))).toBe(1);
    await expect.poll(() => redis.exists(keys.idempotency("quote", "k5"))).toBe(1);
    await dead.stop();
    const taker = new ProcessRegistry(redis);
    await taker.start();
    const action = async () => "again";
    await expect(runOnce(redis, "confirm", "k4", action, { processes: taker })).rejects.toBeInstanceOf(
      InFlightError,
    );
    await expect(
      runOnce(redis, "quote", "k5", action, { processes: taker, takeover: true, settleMs: 0 }),
    ).rejects.toBeInstanceOf(InFlightError);
    await taker.stop();
  });

  it("waits until the dead owner's claim is settleMs old before taking it over", async () => {
    const dead = new ProcessRegistry(redis);
    await dead.start();
    void runOnce(redis, "quote", "k6", () => new Promise<string>(() => undefined), { processes: dead });
    await expect.poll(() => redis.exists(keys.idempotency("quote", "k6"))).toBe(1);
    const claimedAt = Date.now();
    await dead.stop();
    const taker = new ProcessRegistry(redis);
    await taker.start();
    let ranAt = 0;
    await runOnce(
      redis,
      "quote",
      "k6",
      async () => {
        ranAt = Date.now();
        return "resolved";
      },
      { processes: taker, takeover: true, settleMs: 1_000 },
    );
    // A functional bound (the claim's age comes from its TTL, whole milliseconds): not before ~1 s.
    expect(ranAt - claimedAt).toBeGreaterThanOrEqual(900);
    await taker.stop();
  });
});
