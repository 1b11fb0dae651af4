import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { imageAllocatorEnv } from "../../bench/lib/image-allocator.ts";

/**
 * The Docker image runs node on jemalloc (LD_PRELOAD, MALLOC_CONF in the Dockerfile). This runs node 24 the same way
 * on this machine: jemalloc is mapped, it accepted every MALLOC_CONF option (it names a bad one on stderr), its
 * background thread runs, and native memory a burst took goes back to the system with no allocation after it.
 */
function runOnImageAllocator(
  script: string,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    env: { PATH: process.env.PATH ?? "", ...imageAllocatorEnv() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => resolve({ stdout, stderr, code }));
  });
}

describe("the image's allocator", () => {
  it("runs node on jemalloc with the Dockerfile's MALLOC_CONF and gives a burst's native memory back", async () => {
    const script = `
      import { readFileSync, readdirSync } from "node:fs";
      const rss = () => Number(/^VmRSS:\\s+(\\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))[1]) * 1024;
      const threads = () => readdirSync("/proc/self/task").map((id) => readFileSync("/proc/self/task/" + id + "/comm", "utf8").trim());
      const before = rss();
      // 200 MB of native memory in 4 KB blocks (Buffer backing stores come from malloc), then dropped.
      let burst = Array.from({ length: 50000 }, () => Buffer.alloc(4096, 1));
      const peak = rss();
      burst = undefined;
      globalThis.gc();
      let after = rss();
      for (let waited = 0; waited < 15000 && after - before > (peak - before) / 4; waited += 250) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        after = rss();
      }
      console.log(JSON.stringify({
        jemalloc: readFileSync("/proc/self/maps", "utf8").includes("libjemalloc"),
        backgroundThread: threads().some((name) => name.startsWith("jemalloc_bg")),
        before, peak, after,
      }));
    `;
    const { stdout, stderr, code } = await runOnImageAllocator(script);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as {
      jemalloc: boolean;
      backgroundThread: boolean;
      before: number;
      peak: number;
      after: number;
    };
    expect(result.jemalloc).toBe(true);
    expect(result.backgroundThread).toBe(true);
    expect(result.peak - result.before).toBeGreaterThan(150 * 1024 * 1024);
    // At most a quarter of the burst still resident once it is garbage.
    expect(result.after - result.before).toBeLessThan((result.peak - result.before) / 4);
  }, 40_000);

  it("names a MALLOC_CONF option jemalloc does not know, so a typo in the Dockerfile shows up here", async () => {
    const child = spawn(process.execPath, ["-e", "0"], {
      env: { PATH: process.env.PATH ?? "", ...imageAllocatorEnv(), MALLOC_CONF: "background_thred:true" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await new Promise((resolve) => child.on("exit", resolve));
    expect(stderr).toContain("Invalid conf pair");
  });
});
