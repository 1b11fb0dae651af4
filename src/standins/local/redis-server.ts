import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A redis-server on loopback that keeps nothing on disk, for one process or one test run. */
export function privateServerArgs(port: number, dir: string): string[] {
  return [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    "--protected-mode",
    "no",
  ];
}

/** A private, throw-away redis-server on a free loopback port (tests, local mode). Persists nothing. */
export interface PrivateRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

class RedisBinaryMissingError extends Error {
  constructor() {
    super(
      "redis-server was not found on PATH. Install it (Debian/Ubuntu: `apt-get install -y redis-server`, " +
        "macOS: `brew install redis`) or set REDIS_URL to a running Redis.",
    );
    this.name = "RedisBinaryMissingError";
  }
}

export function redisServerAvailable(binary = "redis-server"): boolean {
  const probe = spawnSync(binary, ["--version"], { stdio: "ignore" });
  return probe.status === 0;
}

export async function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startPrivateRedis(
  options: { binary?: string; databases?: number } = {},
): Promise<PrivateRedis> {
  const binary = options.binary ?? "redis-server";
  if (!redisServerAvailable(binary)) throw new RedisBinaryMissingError();
  const dir = mkdtempSync(join(tmpdir(), "payout-bot-redis-"));
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freePort();
    const child = spawn(
      binary,
      [...privateServerArgs(port, dir), "--databases", String(options.databases ?? 32)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const ready = await waitForReady(child);
    if (ready) {
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        stop: () => stopChild(child).finally(() => rmSync(dir, { recursive: true, force: true })),
      };
    }
    child.kill("SIGKILL");
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error("redis-server did not start after 5 attempts");
}

function waitForReady(child: ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    let output = "";
    const timer = setTimeout(() => finish(false), 10_000);
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) finish(true);
    };
    const onExit = () => finish(false);
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}

/** SIGTERM, then SIGKILL after 3 s; resolves once the child is gone (at once if it already exited or was killed). */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
