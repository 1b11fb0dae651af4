import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";

/**
 * How many memory-reducing GCs V8's reducer may run in a row (V8 13.x's default is 2). The count is spent across a
 * burst: the reducer usually runs its first GC while the process is quiet after start-up, then finds the next tick
 * busy and waits with one GC spent, so a burst that follows is answered by a single GC. That GC left V8's heap at
 * 101–111 MB committed around 37 MB of live objects in four of seven `bench:rss` runs (RSS 124.8–127.0 MB); the
 * second one gives the pages back (38–40 MB committed, RSS 114.5–117.4 MB in nine runs).
 */
const REDUCING_GCS = 3;

/**
 * Lets V8 give memory back after a burst. V8 frees the heap a burst leaves behind (garbage in grown old-space pages,
 * and its pool of freed pages) with a memory-reducing GC that its memory reducer starts once allocation goes quiet.
 * In V8 13.x (Node 24) "quiet" also requires a low allocation rate on the embedder (cppgc) heap, and a process that
 * never allocates there reads exactly zero, which the check takes for the highest rate: the reducer answers "high
 * alloc" on every tick and the process keeps its peak (measured: 422 MB with 10,000 sessions, unchanged after 60 s;
 * `bench:rss`, `--trace-memory-reducer`). Compiling a tiny `vm.Script` allocates one cppgc object, so the embedder
 * rate becomes small instead of zero; doing it every few seconds keeps it so, since the rate decays towards zero.
 * Costs a few microseconds per tick. Also lets the reducer run one more GC in a row (`REDUCING_GCS`). Returns the
 * function that stops the ticks.
 */
export function keepMemoryReducerWorking(everyMs = 5_000): () => void {
  setFlagsFromString(`--memory-reducer-gc-count=${REDUCING_GCS}`);
  const timer = setInterval(() => new Script("0"), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
