import { type ChildProcess, fork } from "node:child_process";

/**
 * The outside world in its own process (the Telegram emulator, the webhook sender), so its CPU and event loop do
 * not distort what the bot's process is measured doing. A tiny request/response protocol over the IPC channel.
 */
interface Request {
  id: number;
  type: string;
  payload: unknown;
}
interface Response {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface Child {
  request<T>(type: string, payload?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export function spawnChild(modulePath: string, args: string[] = []): Child {
  const child: ChildProcess = fork(modulePath, args, {
    // A compiled bench (bench/lib/compiled.ts) forks .js files: plain node, no tsx.
    execArgv: modulePath.endsWith(".ts") ? ["--import", "tsx"] : [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  child.on("message", (message: Response) => {
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(new Error(message.error ?? "child request failed"));
  });
  child.on("exit", (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`child ${modulePath} exited (${code})`));
    pending.clear();
  });
  return {
    request<T>(type: string, payload?: unknown): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, type, payload } satisfies Request);
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** In the child: answer the parent's requests; exit when the parent goes away. */
export function serveParent(handlers: Record<string, (payload: never) => unknown>): void {
  process.on("message", async (message: Request) => {
    const handler = handlers[message.type];
    try {
      if (!handler) throw new Error(`unknown request ${message.type}`);
      const result = await handler(message.payload as never);
      process.send?.({ id: message.id, ok: true, result } satisfies Response);
    } catch (error) {
      process.send?.({ id: message.id, ok: false, error: String(error) } satisfies Response);
    }
  });
  process.on("disconnect", () => process.exit(0));
  process.on("SIGTERM", () => process.exit(0));
}
