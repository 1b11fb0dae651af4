import { Redis, type RedisOptions } from "ioredis";
import type { Logger } from "#src/log/logger.js";
import { reportRedisOutages } from "./redis-outage.ts";

/**
 * Where Redis is, from REDIS_URL: a single server (`redis://` / `rediss://`, ioredis parses those itself) or a
 * Sentinel set for high availability:
 *
 *   redis+sentinel://[[user]:password@]host1:26379[,host2:26379…]/<master name>[/<db>][?sentinelPassword=…&tls=true]
 *
 * The password in the authority is the data nodes' password; a Sentinel's own password goes in `sentinelPassword`.
 * BullMQ gets `duplicate()`s of the client made here, so its connections follow a failover too.
 */
const SENTINEL_SCHEME = "redis+sentinel:";

type RedisTarget =
  | { kind: "server"; url: string }
  | { kind: "sentinel"; options: RedisOptions & { sentinels: Array<{ host: string; port: number }> } };

export function parseRedisUrl(raw: string): RedisTarget {
  if (/^rediss?:\/\//.test(raw)) {
    new URL(raw);
    return { kind: "server", url: raw };
  }
  if (!raw.startsWith(`${SENTINEL_SCHEME}//`))
    throw new Error("must start with redis://, rediss:// or redis+sentinel://");

  // A URL has one host: read the comma-separated Sentinel list ourselves, and let URL decode the rest.
  const afterScheme = raw.slice(`${SENTINEL_SCHEME}//`.length);
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? "";
  const at = authority.lastIndexOf("@");
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : "";
  const hosts = authority
    .slice(at + 1)
    .split(",")
    .filter(Boolean);
  if (hosts.length === 0) throw new Error("names no Sentinel (redis+sentinel://host:26379,…/mymaster)");
  const sentinels = hosts.map((entry) => {
    const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
    if (!match?.[1]) throw new Error("has a Sentinel address that is not host[:port]");
    return { host: match[1].replace(/^\[|\]$/g, ""), port: match[2] ? Number(match[2]) : 26379 };
  });
  const url = new URL(`http://${userinfo}sentinels${afterScheme.slice(authority.length)}`);

  const [name, db, ...rest] = url.pathname.split("/").filter(Boolean);
  if (!name || rest.length > 0) throw new Error("must end with /<master name>[/<db>]");
  if (db !== undefined && !/^\d+$/.test(db)) throw new Error("has a database that is not a number");

  const options: RedisOptions & { sentinels: Array<{ host: string; port: number }> } = {
    sentinels,
    name: decodeURIComponent(name),
    // No `failoverDetector`: its +switch-master handler closes the connector while a reconnect may be resolving
    // the master, which ends the client and fails queued commands ("Connection is closed"). A dead master drops
    // its connections, and a demoted one answers READONLY (handled below): both reconnect through the Sentinels.
  };
  if (db !== undefined) options.db = Number(db);
  if (url.username) options.username = decodeURIComponent(url.username);
  if (url.password) options.password = decodeURIComponent(url.password);
  const sentinelPassword = url.searchParams.get("sentinelPassword");
  if (sentinelPassword) options.sentinelPassword = sentinelPassword;
  if (url.searchParams.get("tls") === "true") {
    options.tls = {};
    options.sentinelTLS = {};
    options.enableTLSForSentinelMode = true;
  }
  return { kind: "sentinel", options };
}

/** How long ioredis waits between two tries at most (REDIS_RETRY_MS), and how often an outage is logged. */
const DEFAULT_RETRY_MS = 2_000;

/**
 * The process's Redis client. `maxRetriesPerRequest: null` queues commands while the connection is down (BullMQ
 * requires it); a write refused by a demoted master (READONLY, right after a failover) reconnects and is re-sent
 * to the new master. Reconnecting keeps ioredis's backoff (50 ms more per try) up to `retryEveryMs`, and the client
 * comes with its 'error' listener: an outage is logged once per interval (./redis-outage.ts), never left to
 * ioredis's "Unhandled error event" on stderr.
 */
export function connectRedis(raw: string, report: { logger: Logger; retryEveryMs?: number }): Redis {
  const target = parseRedisUrl(raw);
  const retryEveryMs = report.retryEveryMs ?? DEFAULT_RETRY_MS;
  const common: RedisOptions = {
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(times * 50, retryEveryMs),
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false),
  };
  const redis =
    target.kind === "server" ? new Redis(target.url, common) : new Redis({ ...target.options, ...common });
  reportRedisOutages(redis, { logger: report.logger, address: redisAddress(raw), retryEveryMs });
  return redis;
}

/** Where Redis is, for logs: host:port (or the master name and its Sentinels), never a password. */
export function redisAddress(raw: string): string {
  const target = parseRedisUrl(raw);
  if (target.kind === "sentinel") {
    // parseRedisUrl sets every Sentinel's host and port; IPv6 hosts are kept without their brackets.
    const sentinels = target.options.sentinels
      .map(({ host = "", port }) => `${host.includes(":") ? `[${host}]` : host}:${port}`)
      .join(",");
    return `${target.options.name} via Sentinels ${sentinels}`;
  }
  const url = new URL(target.url);
  return `${url.hostname}:${url.port || "6379"}`;
}
