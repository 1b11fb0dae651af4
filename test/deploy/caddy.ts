import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, fetch, type RequestInit } from "undici";
import { stopChild } from "#src/standins/local/redis-server.js";

/**
 * deploy/caddy/Caddyfile run as it is, by the caddy binary (Debian's `caddy` package; .ci/run installs it), on
 * loopback ports with Caddy's internal CA instead of ACME, in front of `upstream` — the same file compose runs, only
 * its CADDY_* variables set.
 */
export const CADDYFILE = new URL("../../deploy/caddy/Caddyfile", import.meta.url).pathname;

export interface RunningCaddy {
  /** An undici dispatcher that resolves the site's name to loopback and trusts only Caddy's own CA. */
  dispatcher: Agent;
  stop(): Promise<void>;
}

export async function startCaddy(options: {
  domain: string;
  httpPort: number;
  httpsPort: number;
  upstream: { host: string; port: number };
}): Promise<RunningCaddy> {
  const home = mkdtempSync(join(tmpdir(), "payout-caddy-"));
  const child = spawn("caddy", ["run", "--config", CADDYFILE, "--adapter", "caddyfile"], {
    env: {
      PATH: process.env.PATH,
      // Caddy's certificates, its internal CA and its autosaved config all go here, never to the host's.
      HOME: home,
      XDG_DATA_HOME: join(home, "data"),
      XDG_CONFIG_HOME: join(home, "config"),
      PUBLIC_DOMAIN: options.domain,
      CADDY_ADMIN: "off",
      CADDY_BIND: "127.0.0.1",
      CADDY_HTTP_PORT: String(options.httpPort),
      CADDY_HTTPS_PORT: String(options.httpsPort),
      CADDY_CERT_ISSUER: "internal",
      UPSTREAM_NAME: options.upstream.host,
      UPSTREAM_PORT: String(options.upstream.port),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const stop = () => stopChild(child).finally(() => rmSync(home, { recursive: true, force: true }));
  try {
    const root = await waitForRoot(
      child,
      join(home, "data/caddy/pki/authorities/local/root.crt"),
      () => output,
    );
    const dispatcher = new Agent({
      connect: {
        ca: root,
        // The site's name, as a webhook sender would dial it, lands on Caddy's loopback port.
        lookup: (_hostname, _options, callback) => callback(null, [{ address: "127.0.0.1", family: 4 }]),
      },
    });
    await waitForCertificate(
      dispatcher,
      `https://${options.domain}:${options.httpsPort}/healthz`,
      () => output,
    );
    return {
      dispatcher,
      async stop() {
        await dispatcher.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitForRoot(child: ChildProcess, path: string, output: () => string): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`caddy exited (${child.exitCode}):\n${output()}`);
    try {
      return readFileSync(path, "utf8");
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`caddy made no internal CA within 15 s:\n${output()}`);
}

/** The site's certificate is issued just after start: wait until a handshake with it succeeds. */
async function waitForCertificate(dispatcher: Agent, url: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      await (await fetchThrough(dispatcher, url)).arrayBuffer();
      return;
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
  throw new Error(`caddy did not serve ${url} within 15 s (${String(last)}):\n${output()}`);
}

export function fetchThrough(dispatcher: Agent, url: string, init: RequestInit = {}) {
  return fetch(url, { ...init, redirect: "manual", dispatcher });
}
