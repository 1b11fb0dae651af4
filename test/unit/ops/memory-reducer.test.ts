import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("../../../src/ops/memory-reducer.ts", import.meta.url));

/**
 * A child that allocates a burst, drops it, then stays quiet, with V8's memory reducer traced. Resolves with its
 * trace once the reducer starts a GC or `ms` have passed.
 */
function burstThenQuiet(nudge: boolean, ms: number): Promise<string> {
  const script = `
    const { keepMemoryReducerWorking } = await import(${JSON.stringify(MODULE)});
    let window = [];
    for (let round = 0; round < 40; round++) {
      window.push(Array.from({ length: 100000 }, (_, i) => ({ i, s: "x" + i })));
      if (window.length > 4) window.shift();
    }
    window = [];
    if (${nudge}) keepMemoryReducerWorking(1000);
    setInterval(() => undefined, 1000);
  `;
  const child = spawn(
    process.execPath,
    ["--trace-memory-reducer", "--import", "tsx", "--input-type=module", "-e", script],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let trace = "";
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      resolve(trace);
    };
    const timer = setTimeout(done, ms);
    child.on("error", reject);
    child.stderr.on("data", (chunk: Buffer) => {
      trace += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      trace += chunk.toString();
      if (trace.includes("Memory reducer: started GC")) done();
    });
  });
}

describe("keepMemoryReducerWorking", () => {
  it("lets V8's memory reducer start its memory-reducing GC once a burst is over; without it the reducer waits", async () => {
    const [nudged, control] = await Promise.all([
      burstThenQuiet(true, 40_000),
      burstThenQuiet(false, 22_000),
    ]);
    expect(nudged).toContain("Memory reducer: low alloc");
    expect(nudged).toContain("Memory reducer: started GC");
    // The V8 behaviour the nudge exists for: a quiet process read as allocating, tick after tick.
    expect(control.match(/Memory reducer: high alloc/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(control).not.toContain("Memory reducer: started GC");
  }, 60_000);

  it("does not keep the process alive", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `const { keepMemoryReducerWorking } = await import(${JSON.stringify(MODULE)}); keepMemoryReducerWorking(10);`,
      ],
      { stdio: "ignore" },
    );
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
  });
});
