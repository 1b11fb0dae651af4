import { existsSync, readdirSync, readFileSync } from "node:fs";

/**
 * This process's CPU time by thread name, from /proc/self/task (Linux): the main thread (JavaScript, the event
 * loop and the syscalls it makes) apart from V8's helper threads (parallel and concurrent GC, the optimizing
 * compiler) and jemalloc's background thread. process.cpuUsage() is their sum. Empty where /proc is not there.
 */
export type ThreadCpu = Record<string, number>;

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux for x86 and arm). */
const TICKS_PER_SECOND = 100;

/**
 * A process's or thread's name and CPU time (utime + stime, ms) from its /proc `stat` file; undefined once it has
 * gone (or where /proc is not there).
 */
export function readProcStat(path: string): { name: string; cpuMs: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  // "pid (name) state ppid ...": the name may hold spaces and parentheses, so split after the last ")".
  const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  return { name, cpuMs: (ticks * 1000) / TICKS_PER_SECOND };
}

export function threadCpuMs(): ThreadCpu {
  const cpu: ThreadCpu = {};
  if (!existsSync("/proc/self/task")) return cpu;
  for (const tid of readdirSync("/proc/self/task")) {
    const thread = readProcStat(`/proc/self/task/${tid}/stat`);
    if (thread) cpu[thread.name] = (cpu[thread.name] ?? 0) + thread.cpuMs;
  }
  return cpu;
}

/** What each thread name spent between two readings (threads started in between count from zero). */
export function threadCpuDelta(before: ThreadCpu, after: ThreadCpu): ThreadCpu {
  return Object.fromEntries(Object.entries(after).map(([name, ms]) => [name, ms - (before[name] ?? 0)]));
}
