import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GuardedFetchError, guardedGet, type ResolvedAddress } from "#src/http/guarded-fetch.js";
import { FORBIDDEN_ADDRESSES, familyOf } from "../../support/forbidden-addresses.ts";
import {
  PUBLIC_V4,
  PUBLIC_V6,
  type PublicHttpsServer,
  startPublicHttpsServer,
} from "../../support/public-https-server.ts";

describe("guarded fetch of user-named hosts", () => {
  let server: PublicHttpsServer;
  let answer: (response: ServerResponse, url: URL) => void;
  const hosts: string[] = [];

  beforeAll(async () => {
    server = await startPublicHttpsServer(["wallet.test", "pay.wallet.test"], (request, response, url) => {
      hosts.push(request.headers.host ?? "");
      answer(response, url);
    });
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    answer = (response) => response.end("ok");
    hosts.length = 0;
    server.requests.length = 0;
    server.lookups.length = 0;
    server.dialled.length = 0;
    server.dns.set("wallet.test", [{ address: PUBLIC_V4, family: 4 }]);
    server.dns.delete("evil.test");
  });

  const get = (url: string, timeoutMs = 2_000) =>
    guardedGet(url, { accept: "text/plain", timeoutMs, maxBytes: 1_024, ...server.network });
  const failure = async (url: string, timeoutMs?: number) => {
    try {
      await get(url, timeoutMs);
    } catch (error) {
      if (error instanceof GuardedFetchError) return error.failure;
      throw error;
    }
    throw new Error(`expected ${url} to be refused`);
  };
  /** The fetch is refused as `expected` and nothing connected to the listener. */
  const refusedBeforeConnecting = async (url: string, expected = "forbidden_host", what = url) => {
    const before = server.connections;
    expect(await failure(url), what).toBe(expected);
    expect(server.connections, what).toBe(before);
    expect(server.dialled, what).toEqual([]);
  };

  it("fetches over https from a name resolved once, pinned to the checked address, name kept as SNI and Host", async () => {
    const before = server.connections;
    expect((await get("https://wallet.test/x?y=1")).toString()).toBe("ok");
    expect(server.lookups).toEqual(["wallet.test"]);
    expect(server.dialled).toEqual([{ address: PUBLIC_V4, family: 4 }]);
    expect(server.requests).toEqual(["GET /x?y=1"]);
    expect(hosts).toEqual(["wallet.test"]);
    expect(server.connections).toBe(before + 1);
    // The certificate is only for the names: the handshake passing means SNI and verification used the name.
    server.dns.set("pay.wallet.test", [
      { address: PUBLIC_V6, family: 6 },
      { address: `::ffff:${PUBLIC_V4}`, family: 6 },
      { address: "64:ff9b::5db8:d70e", family: 6 },
    ]);
    expect((await get("https://pay.wallet.test/")).toString()).toBe("ok");
    expect(server.dialled.slice(1).map(({ address }) => address)).toEqual([
      PUBLIC_V6,
      `::ffff:${PUBLIC_V4}`,
      "64:ff9b::5db8:d70e",
    ]);
  });

  it("never asks DNS a second time, so a rebinding answer is never used", async () => {
    let calls = 0;
    const rebinding = async (name: string): Promise<ResolvedAddress[]> => {
      calls += 1;
      return server.network.resolve!(calls === 1 ? name : "nowhere.test").catch(() => [
        { address: "127.0.0.1", family: 4 },
      ]);
    };
    const body = await guardedGet("https://wallet.test/", {
      accept: "text/plain",
      timeoutMs: 2_000,
      maxBytes: 1_024,
      ...server.network,
      resolve: rebinding,
    });
    expect(body.toString()).toBe("ok");
    expect(calls).toBe(1);
  });

  it("refuses every forbidden address class as an IP literal host, before any connection", async () => {
    for (const [what, address] of FORBIDDEN_ADDRESSES) {
      const host = familyOf(address) === 6 ? `[${address}]` : address;
      await refusedBeforeConnecting(`https://${host}/`, "forbidden_host", what);
    }
    // Every spelling of an IPv4 literal, and a public one too: literals are never fetched.
    for (const host of ["127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.0.0.1", "10.1", PUBLIC_V4]) {
      await refusedBeforeConnecting(`https://${host}/`);
    }
    await refusedBeforeConnecting(`https://[${PUBLIC_V6}]/`);
    expect(server.lookups).toEqual([]);
  });

  it("refuses a name that resolves to any forbidden address, alone or beside a public one", async () => {
    for (const [what, address] of FORBIDDEN_ADDRESSES) {
      const bad = { address, family: familyOf(address) };
      server.dns.set("evil.test", [bad]);
      await refusedBeforeConnecting("https://evil.test/", "forbidden_host", what);
      server.dns.set("evil.test", [{ address: PUBLIC_V4, family: 4 }, bad]);
      await refusedBeforeConnecting("https://evil.test/", "forbidden_host", `${what} after a public one`);
      server.dns.set("evil.test", [bad, { address: PUBLIC_V6, family: 6 }]);
      await refusedBeforeConnecting("https://evil.test/", "forbidden_host", `${what} before a public one`);
    }
    expect(server.lookups.filter((name) => name === "evil.test")).toHaveLength(
      3 * FORBIDDEN_ADDRESSES.length,
    );
  });

  it("refuses anything but https, and credentials in the URL", async () => {
    await refusedBeforeConnecting("http://wallet.test/", "insecure_url");
    await refusedBeforeConnecting("ftp://wallet.test/", "insecure_url");
    await refusedBeforeConnecting("https://user:pass@wallet.test/", "insecure_url");
    await refusedBeforeConnecting("https://256.1.1.1/", "insecure_url");
    expect(server.lookups).toEqual([]);
  });

  it("treats a redirect as a failure and does not follow it", async () => {
    answer = (response, url) => {
      if (url.pathname !== "/moved") response.end("followed");
      else response.writeHead(302, { location: "https://wallet.test/target" }).end();
    };
    expect(await failure("https://wallet.test/moved")).toBe("http_status");
    expect(server.requests).toEqual(["GET /moved"]);
    answer = (response) => response.writeHead(404).end("no");
    expect(await failure("https://wallet.test/")).toBe("http_status");
  });

  it("caps the body, declared or streamed, and the time", async () => {
    answer = (response) => response.end("x".repeat(5_000));
    expect(await failure("https://wallet.test/")).toBe("too_large");
    answer = (response) => {
      response.writeHead(200, { "content-type": "text/plain" }); // chunked: no length declared
      for (let i = 0; i < 10; i += 1) response.write("x".repeat(512));
      response.end();
    };
    expect(await failure("https://wallet.test/")).toBe("too_large");
    answer = () => undefined; // the request is left hanging
    expect(await failure("https://wallet.test/", 300)).toBe("timeout");
    // The time cap covers resolving the name too.
    const never = guardedGet("https://wallet.test/", {
      accept: "text/plain",
      timeoutMs: 300,
      maxBytes: 1_024,
      resolve: () => new Promise<ResolvedAddress[]>(() => undefined),
    });
    await expect(never).rejects.toMatchObject({ failure: "timeout" });
  });

  it("calls a name that does not resolve unreachable", async () => {
    expect(await failure("https://nowhere.test/")).toBe("unreachable");
    expect(server.dialled).toEqual([]);
  });
});
