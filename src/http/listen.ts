import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Listen on `host`:`port` (0: a free port); the port taken and a URL that reaches it from this machine. */
export async function listen(
  server: Server,
  port: number,
  host: string,
): Promise<{ port: number; url: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${shown === "0.0.0.0" || shown === "[::]" ? "127.0.0.1" : shown}:${address.port}`;
  return { port: address.port, url };
}

/** Stop accepting, let in-flight requests finish for up to `graceMs`, then close what is left. */
export async function closeGracefully(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  timer.unref();
  await closed;
  clearTimeout(timer);
}
