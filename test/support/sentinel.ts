import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort, privateServerArgs, stopChild } from "#src/standins/local/redis-server.js";

/**
 * A Redis high-availability set on loopback, made of real processes: one master, one replica and three Sentinels
 * (quorum 2) watching the master under `name`. Failover is quick (the master counts as down after 1 s).
 */
export interface SentinelSet {
  name: string;
  /** REDIS_URL for the bot: `redis+sentinel://127.0.0.1:<s1>,…/<name>`. */
  url: string;
  masterPort: number;
  replicaPort: number;
  /** SIGKILL the current master: the Sentinels promote the replica. */
  killMaster(): void;
  /** The port the Sentinels name as master now. */
  currentMasterPort(): Promise<number>;
  stop(): Promise<void>;
}

const READY = {
  server: "Ready to accept connections",
  sentinel: "+monitor master",
} as const;

export async function startSentinelSet(name = "payoutbot"): Promise<SentinelSet> {
  const dir = mkdtempSync(join(tmpdir(), "payout-bot-sentinel-"));
  const children: ChildProcess[] = [];
  const start = async (args: string[], ready: string) => {
    const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    await waitForLine(child, ready);
    return child;
  };
  const serverArgs = (port: number, sub: string) => {
    mkdirSync(join(dir, sub));
    return privateServerArgs(port, join(dir, sub));
  };

  try {
    const masterPort = await freePort();
    const master = await start(serverArgs(masterPort, "master"), READY.server);
    const replicaPort = await freePort();
    await start(
      [...serverArgs(replicaPort, "replica"), "--replicaof", "127.0.0.1", String(masterPort)],
      READY.server,
    );
    await waitFor(async () => {
      const probe = new Redis(masterPort, "127.0.0.1", { lazyConnect: true });
      try {
        await probe.connect();
        return /connected_slaves:1/.test(await probe.info("replication"));
      } finally {
        probe.disconnect();
      }
    }, "the replica to attach");

    const sentinelPorts: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      const port = await freePort();
      const file = join(dir, `sentinel-${index}.conf`);
      // Sentinel rewrites its config file as it learns the topology: it must be a writable file of its own.
      writeFileSync(
        file,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          "protected-mode no",
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          "",
        ].join("\n"),
      );
      await start([file, "--sentinel"], READY.sentinel);
      sentinelPorts.push(port);
    }
    // A failover needs the Sentinels to know each other (hello messages every 2 s) and the replica.
    await waitFor(async () => {
      for (const port of sentinelPorts) {
        const sentinel = new Redis(port, "127.0.0.1", { lazyConnect: true });
        try {
          await sentinel.connect();
          const peers = (await sentinel.call("SENTINEL", "sentinels", name)) as unknown[];
          const replicas = (await sentinel.call("SENTINEL", "replicas", name)) as unknown[];
          if (peers.length < 2 || replicas.length < 1) return false;
        } finally {
          sentinel.disconnect();
        }
      }
      return true;
    }, "the Sentinels to discover each other and the replica");

    const askSentinel = async (): Promise<number> => {
      const sentinel = new Redis(sentinelPorts[0] ?? 0, "127.0.0.1", { lazyConnect: true });
      try {
        await sentinel.connect();
        const [, port] = (await sentinel.call("SENTINEL", "get-master-addr-by-name", name)) as [
          string,
          string,
        ];
        return Number(port);
      } finally {
        sentinel.disconnect();
      }
    };

    return {
      name,
      url: `redis+sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(",")}/${name}`,
      masterPort,
      replicaPort,
      killMaster: () => master.kill("SIGKILL"),
      currentMasterPort: askSentinel,
      async stop() {
        await Promise.all(children.map(stopChild));
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(children.map(stopChild));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function waitForLine(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => reject(new Error(`redis-server never said "${line}":\n${output}`)),
      10_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(line)) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}):\n${output}`));
    });
  });
}
