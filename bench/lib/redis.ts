import { Redis } from "ioredis";
import { type PrivateRedis, startPrivateRedis } from "#src/standins/local/redis-server.js";

/**
 * Each bench part runs its own throw-away redis-server (persisting nothing) and reads Redis's own counters: how
 * many commands our code sent (INFO commandstats) and how much CPU redis-server spent (INFO cpu), so the cost
 * that lives outside the Node process is reported too.
 */
export interface BenchRedis {
  server: PrivateRedis;
  /** The client the code under test uses (maxRetriesPerRequest: null, as BullMQ needs). */
  redis: Redis;
  /** A second connection for measuring, so its commands are easy to leave out. */
  probe: Redis;
  snapshot(): Promise<RedisSnapshot>;
  stop(): Promise<void>;
}

export interface RedisSnapshot {
  /** Commands by name (lower case), INFO/CONFIG/MEMORY left out. */
  calls: Record<string, number>;
  total: number;
  cpuSeconds: number;
  usedMemory: number;
}

const MEASURING = new Set(["info", "config", "memory", "dbsize", "scan", "client", "hello"]);

export async function startBenchRedis(): Promise<BenchRedis> {
  const server = await startPrivateRedis({ databases: 1 });
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  const probe = new Redis(server.url, { maxRetriesPerRequest: null });
  await Promise.all([redis.ping(), probe.ping()]);
  const disarm = killOnExit(Number(/process_id:(\d+)/.exec(await probe.info("server"))?.[1]));
  return {
    server,
    redis,
    probe,
    snapshot: () => redisSnapshot(probe),
    async stop() {
      await Promise.all([redis.quit().catch(() => undefined), probe.quit().catch(() => undefined)]);
      await server.stop();
      disarm();
    },
  };
}

/** A crashed or interrupted bench must not leave its redis-server behind. */
function killOnExit(pid: number): () => void {
  if (!Number.isSafeInteger(pid) || pid <= 0) return () => undefined;
  const kill = () => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already stopped.
    }
  };
  process.once("exit", kill);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    if (process.listenerCount(signal) === 0) process.once(signal, () => process.exit(130));
  }
  // After a clean stop the pid is gone (and could be reused): do not kill it again.
  return () => process.off("exit", kill);
}

function infoFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split("\r\n")) {
    const at = line.indexOf(":");
    if (at > 0 && !line.startsWith("#")) fields.set(line.slice(0, at), line.slice(at + 1));
  }
  return fields;
}

export async function redisSnapshot(probe: Redis): Promise<RedisSnapshot> {
  const [stats, cpu, memory] = await Promise.all([
    probe.info("commandstats"),
    probe.info("cpu"),
    probe.info("memory"),
  ]);
  const calls: Record<string, number> = {};
  let total = 0;
  for (const [key, value] of infoFields(stats)) {
    const name = key.replace(/^cmdstat_/, "").toLowerCase();
    if (MEASURING.has(name.split("|")[0] ?? name)) continue;
    const count = Number(/calls=(\d+)/.exec(value)?.[1] ?? 0);
    calls[name] = count;
    total += count;
  }
  const cpuFields = infoFields(cpu);
  const cpuSeconds = Number(cpuFields.get("used_cpu_user") ?? 0) + Number(cpuFields.get("used_cpu_sys") ?? 0);
  const usedMemory = Number(infoFields(memory).get("used_memory") ?? 0);
  return { calls, total, cpuSeconds, usedMemory };
}

/** What happened in Redis between two snapshots. */
export function redisDelta(before: RedisSnapshot, after: RedisSnapshot) {
  const calls: Record<string, number> = {};
  for (const [name, count] of Object.entries(after.calls)) {
    const delta = count - (before.calls[name] ?? 0);
    if (delta > 0) calls[name] = delta;
  }
  const sorted = Object.fromEntries(Object.entries(calls).sort(([, a], [, b]) => b - a));
  return {
    calls: sorted,
    total: after.total - before.total,
    cpuSeconds: after.cpuSeconds - before.cpuSeconds,
  };
}
