import { Redis } from "ioredis";

/**
 * What one Redis round trip costs the calling process in CPU on this machine: `count` GETs one after another through
 * ioredis (write, wait, read, parse, resolve), measured with process.cpuUsage. System calls cost very different
 * amounts on different machines and sandboxes, and the bot's CPU per event or per update is largely its round trips:
 * this figure is what lets a reader carry those results to another machine.
 */
export async function roundTripCpuMicros(redisUrl: string, count = 20_000): Promise<number> {
  const redis = new Redis(redisUrl);
  try {
    for (let i = 0; i < 1_000; i++) await redis.get("bench:round-trip");
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) await redis.get("bench:round-trip");
    const used = process.cpuUsage(before);
    return (used.user + used.system) / count;
  } finally {
    redis.disconnect();
  }
}
