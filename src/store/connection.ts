import { Redis, type RedisOptions } from "ioredis";

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

/**
 * The process's Redis client. `maxRetriesPerRequest: null` queues commands while the connection is down (BullMQ
 * requires it); a write refused by a demoted master (READONLY, right after a failover) reconnects and is re-sent
 * to the new master.
 */
export function connectRedis(raw: string): Redis {
  const target = parseRedisUrl(raw);
  const common: RedisOptions = {
    maxRetriesPerRequest: null,
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false),
  };
  return target.kind === "server"
    ? new Redis(target.url, common)
    : new Redis({ ...target.options, ...common });
}
