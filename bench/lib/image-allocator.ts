import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename } from "node:path";

/**
 * The allocator the Docker image runs the bot with, as environment for a process on this machine: the Dockerfile's
 * `LD_PRELOAD` (the image's path, /usr/local/lib/…, mapped to where Debian's package put the same library here) and
 * `MALLOC_CONF`. Throws when the Dockerfile sets neither or the library is not installed (`apt-get install
 * libjemalloc2`), so a measurement never silently runs on another allocator.
 */
export function imageAllocatorEnv(): { LD_PRELOAD: string; MALLOC_CONF: string } {
  const dockerfile = readFileSync(new URL("../../Dockerfile", import.meta.url), "utf8");
  const setting = (name: string) => new RegExp(`^\\s*${name}=(\\S+)`, "m").exec(dockerfile)?.[1];
  const preload = setting("LD_PRELOAD");
  const conf = setting("MALLOC_CONF");
  if (!preload || !conf) throw new Error("the Dockerfile sets no LD_PRELOAD and MALLOC_CONF");
  return { LD_PRELOAD: installedLibrary(basename(preload)), MALLOC_CONF: conf };
}

function installedLibrary(file: string): string {
  let listed = "";
  try {
    listed = execFileSync("dpkg", ["-L", "libjemalloc2"], { encoding: "utf8" });
  } catch {
    // Not a Debian system, or the package is missing: said below.
  }
  const path = listed.split("\n").find((line) => line.endsWith(`/${file}`));
  if (!path) throw new Error(`${file} is not installed here: apt-get install libjemalloc2`);
  return path;
}
