import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";

const MODULE = fileURLToPath(new URL("../../../src/ops/memory-reducer.ts", import.meta.url));

/**
 * Runs `script` in a child with V8's memory reducer traced. `watch` sees the trace so far (and the child's stdin)
 * after each write and says when it has seen enough; resolves with the trace then, or once `ms` have passed.
 */
function tracedChild(
  script: string,
  ms: number,
  watch: (trace: string, stdin: NodeJS.WritableStream) => boolean,
): Promise<string> {
  const child = spawn(
    process.execPath,
    ["--trace-memory-reducer", "--import", "tsx", "--input-type=module", "-e", script],
    { stdio: ["pipe", "pipe", "pipe"] },
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
      if (watch(trace, child.stdin)) done();
    });
  });
}

/**
 * A child that allocates a burst, drops it, then stays quiet. Resolves with its trace once the reducer starts a GC
 * or `ms` have passed.
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
  return tracedChild(script, ms, (trace) => trace.includes("Memory reducer: started GC"));
}

/**
 * A child that runs keepMemoryReducerWorking, lets V8's memory reducer spend its first GC while it is quiet after
 * start-up, then allocates a burst (told to on stdin as soon as that GC has finished) and stays quiet again — the
 * sequence `bench:rss` traced in a deployed process. `v8Default` puts V8's own count of reducing GCs back. Resolves
 * with the trace from the burst on, once the reducer says it is done or `ms` have passed.
 */
async function quietBurstQuiet(v8Default: boolean, ms: number): Promise<string> {
  const script = `
    const { keepMemoryReducerWorking } = await import(${JSON.stringify(MODULE)});
    const { setFlagsFromString } = await import("node:v8");
    const { createInterface } = await import("node:readline");
    keepMemoryReducerWorking(1000);
    if (${v8Default}) setFlagsFromString("--memory-reducer-gc-count=2");
    let window = [];
    for (let round = 0; round < 10; round++) window.push(Array.from({ length: 100000 }, (_, i) => ({ i, s: "x" + i })));
    window = [];
    createInterface({ input: process.stdin }).on("line", async () => {
      const until = Date.now() + 3000;
      while (Date.now() < until) {
        window.push(Array.from({ length: 100000 }, (_, i) => ({ i, s: "x" + i })));
        if (window.length > 40) window.shift();
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      window = [];
      console.log("burst over");
    });
    setInterval(() => undefined, 1000);
  `;
  let burst = false;
  const trace = await tracedChild(script, ms, (trace, stdin) => {
    if (!burst && trace.includes("Memory reducer: finished GC #1")) {
      burst = true;
      stdin.write("burst\n");
    }
    const after = trace.split("burst over")[1];
    return after !== undefined && /Memory reducer: finished GC #\d \(done\)/.test(after);
  });
  return trace.slice(trace.indexOf("burst over"));
}

describe.concurrent("keepMemoryReducerWorking", () => {
  it("lets V8's memory reducer start its memory-reducing GC once a burst is over; without it the reducer waits", async ({
    expect,
  }) => {
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

  it("lets the reducer answer a burst with two GCs when it spent one while quiet before it; V8's default leaves one", async ({
    expect,
  }) => {
    const [ours, v8Default] = await Promise.all([
      quietBurstQuiet(false, 85_000),
      quietBurstQuiet(true, 85_000),
    ]);
    expect(ours).toMatch(/^burst over/);
    expect(ours).toContain("Memory reducer: finished GC #2 (will do more)");
    expect(ours).toContain("Memory reducer: finished GC #3 (done)");
    expect(v8Default).toMatch(/^burst over/);
    expect(v8Default).toContain("Memory reducer: finished GC #2 (done)");
    expect(v8Default).not.toContain("GC #3");
  }, 90_000);

  it("does not keep the process alive", async ({ expect }) => {
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
