import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateServerArgs } from "#src/standins/local/redis-server.js";

/**
 * A throw-away redis-server on a port the test chose beforehand (a bot already pointed at it while nothing
 * listened), with a password; stop() ends the process and its files. Start it again on the same port to bring
 * "the same" Redis back (empty: it keeps nothing).
 */
export interface RedisOnPort {
  stop(): Promise<void>;
}

export async function startRedisOnPort(port: number, password: string): Promise<RedisOnPort> {
  const dir = mkdtempSync(join(tmpdir(), "payout-bot-redis-port-"));
  const child = spawn("redis-server", [...privateServerArgs(port, dir), "--requirepass", password], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    await ready(child);
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", done);
        // SIGKILL: Redis goes away as in a crash, with no goodbye to its clients.
        child.kill("SIGKILL");
      }),
  };
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}):\n${output}`));
    });
  });
}
