import { Script } from "node:vm";

/**
 * Lets V8 give memory back after a burst. V8 frees the heap a burst leaves behind (garbage in grown old-space pages,
 * and its pool of freed pages) with a memory-reducing GC that its memory reducer starts once allocation goes quiet.
 * In V8 13.x (Node 24) "quiet" also requires a low allocation rate on the embedder (cppgc) heap, and a process that
 * never allocates there reads exactly zero, which the check takes for the highest rate: the reducer answers "high
 * alloc" on every tick and the process keeps its peak (measured: 422 MB with 10,000 sessions, unchanged after 60 s;
 * `bench:rss`, `--trace-memory-reducer`). Compiling a tiny `vm.Script` allocates one cppgc object, so the embedder
 * rate becomes small instead of zero; doing it every few seconds keeps it so, since the rate decays towards zero.
 * Costs a few microseconds per tick. Returns the function that stops it.
 */
export function keepMemoryReducerWorking(everyMs = 5_000): () => void {
  const timer = setInterval(() => new Script("0"), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
