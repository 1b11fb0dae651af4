import { readFileSync } from "node:fs";

/** Where a process's resident memory is, from outside: its /proc/<pid>/smaps grouped by what backs each mapping,
 * and V8's own heap figures from the process's /metrics (prom-client's default metrics). */
export interface ResidentBreakdown {
  /** Anonymous mappings that are whole 256 KB V8 pages (old, new, code and trusted space pages). */
  v8Pages: number;
  /** glibc's main arena ([heap]): what Node, V8's zones and the addons got from malloc in small pieces (empty when
   * jemalloc replaces glibc's malloc: its memory is anonymous mappings). */
  mallocHeap: number;
  /** The node executable's mapped text and data. */
  nodeBinary: number;
  /** Every other anonymous mapping: jemalloc's extents or glibc's large blocks, thread stacks, V8's large objects. */
  otherAnonymous: number;
  /** Shared libraries and any other file. */
  otherFiles: number;
  /** V8's live objects in all spaces, and what it has committed for them (from /metrics). */
  heapUsed: number;
  heapCommitted: number;
  /** Buffers and other memory outside the V8 heap that V8 is told about. */
  external: number;
}

const PAGE = 256 * 1024;

export async function residentBreakdown(pid: number, metricsUrl: string): Promise<ResidentBreakdown> {
  const breakdown: ResidentBreakdown = {
    v8Pages: 0,
    mallocHeap: 0,
    nodeBinary: 0,
    otherAnonymous: 0,
    otherFiles: 0,
    heapUsed: 0,
    heapCommitted: 0,
    external: 0,
  };
  let group: keyof ResidentBreakdown = "otherAnonymous";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const size = Number.parseInt(mapping[2] ?? "0", 16) - Number.parseInt(mapping[1] ?? "0", 16);
      const path = mapping[3] ?? "";
      if (path === "[heap]") group = "mallocHeap";
      else if (path === "") group = size === PAGE ? "v8Pages" : "otherAnonymous";
      else if (/\/node$/.test(path)) group = "nodeBinary";
      else if (path.startsWith("[")) group = "otherAnonymous";
      else group = "otherFiles";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) breakdown[group] += Number(rss[1]) * 1024;
  }
  const metrics = await (await fetch(metricsUrl)).text();
  const sum = (name: string) =>
    [...metrics.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "gm"))].reduce(
      (total, match) => total + Number(match[1]),
      0,
    );
  breakdown.heapUsed = sum("nodejs_heap_space_size_used_bytes");
  breakdown.heapCommitted = sum("nodejs_heap_space_size_total_bytes");
  breakdown.external = sum("nodejs_external_memory_bytes");
  return breakdown;
}
