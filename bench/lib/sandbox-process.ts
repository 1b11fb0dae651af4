import { spawnChild } from "./child.ts";
import { runningCompiled } from "./compiled.ts";
import type { SandboxAddress } from "./sandbox.ts";

/**
 * The bench sandbox in a child process (bench/lib/sandbox-child.ts): the measured process then holds and spends
 * only what a production bot does, which talks to the payout API over the network and never loads the sandbox.
 * `inProcess` runs it here instead (its CPU and memory then count as the bot's), imported only when asked.
 */
export interface BenchSandbox {
  address: SandboxAddress;
  where: "child process" | "in process";
  stop(): Promise<void>;
}

export async function startSandboxProcess(options: { inProcess?: boolean } = {}): Promise<BenchSandbox> {
  if (options.inProcess) {
    const { startBenchSandbox } = await import("./sandbox.ts");
    const sandbox = await startBenchSandbox();
    return { address: sandbox, where: "in process", stop: () => sandbox.close() };
  }
  const child = spawnChild(
    new URL(`./sandbox-child.${runningCompiled ? "js" : "ts"}`, import.meta.url).pathname,
  );
  const address = await child.request<SandboxAddress>("start");
  return { address, where: "child process", stop: () => child.stop() };
}
