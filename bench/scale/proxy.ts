import {
  Agent,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A round-robin HTTP proxy on loopback, the load balancer in front of several `web` processes: each request goes to
 * the next live upstream, so consecutive updates of one chat land on different processes. An upstream that refuses
 * the connection (killed) is skipped for that request and the next one is tried.
 */
export interface RoundRobinProxy {
  url: string;
  setUpstreams(ports: number[]): void;
  /** Requests forwarded per upstream port. */
  counts(): Map<number, number>;
  close(): Promise<void>;
}

const MAX_TRIES = 8;

export async function startRoundRobinProxy(): Promise<RoundRobinProxy> {
  let upstreams: number[] = [];
  let next = 0;
  const counts = new Map<number, number>();
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number) => {
    if (upstreams.length === 0 || tries > MAX_TRIES) {
      res.writeHead(502).end();
      return;
    }
    const port = upstreams[next++ % upstreams.length] ?? 0;
    const upstream = request(
      { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        counts.set(port, (counts.get(port) ?? 0) + 1);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      // A killed upstream: like a load balancer's health check, try the others (after a beat, once they are all
      // down, so a replacement has time to register).
      if (!res.headersSent) setTimeout(() => forward(req, res, body, tries + 1), tries * 100);
    });
    upstream.end(body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => forward(req, res, Buffer.concat(chunks), 1));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setUpstreams(ports) {
      upstreams = [...ports];
    },
    counts: () => new Map(counts),
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
