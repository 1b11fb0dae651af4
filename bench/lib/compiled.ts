import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rewriteSrcImports } from "../../scripts/src-imports.mjs";
import { imageAllocatorEnv } from "./image-allocator.ts";

/**
 * Bench parts measured as production runs them: src/ and bench/ compiled by tsc (same options as the production
 * build, scripts/build.mjs + tsconfig.build.json) into .tmp/bench-compiled/, run by plain `node` without tsx.
 * The layout mirrors the repository (src/i18n reads ../../locales), so locales/ is linked beside src/ and the
 * runtime files the production build copies (src/standins/sandbox/data) are copied too.
 */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const COMPILED_DIR = join(REPO_ROOT, ".tmp", "bench-compiled");

/** True when this module itself runs compiled (a .js file), i.e. inside the compiled bench. */
export const runningCompiled = import.meta.url.endsWith(".js");

export function buildCompiledBench(): string {
  rmSync(COMPILED_DIR, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const result = spawnSync(
    process.execPath,
    // --noCheck: emit only (the same JavaScript; type errors are `npm run typecheck`'s business).
    [tsc, "-p", join(REPO_ROOT, "bench", "tsconfig.compiled.json"), "--noCheck"],
    {
      stdio: "inherit",
    },
  );
  if (result.status !== 0) throw new Error(`tsc failed (exit ${result.status}) building the compiled bench`);
  rewriteSrcImports(COMPILED_DIR, join(COMPILED_DIR, "src"));
  // This module, compiled, imports the rewriter too (it is plain JavaScript, outside tsc's input).
  const rewriter = join("scripts", "src-imports.mjs");
  cpSync(join(REPO_ROOT, rewriter), join(COMPILED_DIR, rewriter));
  const data = join("src", "standins", "sandbox", "data");
  cpSync(join(REPO_ROOT, data), join(COMPILED_DIR, data), { recursive: true });
  const locales = join(COMPILED_DIR, "locales");
  mkdirSync(COMPILED_DIR, { recursive: true });
  if (!existsSync(locales)) symlinkSync(join(REPO_ROOT, "locales"), locales, "dir");
  return COMPILED_DIR;
}

/** Where bench/<part>.ts lands in the compiled tree. */
export function compiledPart(part: string): string {
  return join(COMPILED_DIR, "bench", `${part}.js`);
}

/** The repository's bench/results (the compiled tree's own would be under .tmp). */
export const REPO_RESULTS_DIR = join(REPO_ROOT, "bench", "results");

/**
 * Build, then run bench/<part> compiled in a child `node --expose-gc` (stdout and stderr shared with this process);
 * returns its exit code. `args` are the part's options (without --compiled). The child runs on the image's allocator
 * (jemalloc, the Dockerfile's MALLOC_CONF) unless BENCH_MALLOC=glibc.
 */
function runCompiled(part: string, args: readonly string[]): number {
  buildCompiledBench();
  // This process's node flags (e.g. --max-semi-space-size) without the tsx loader.
  const flags = process.execArgv.filter(
    (flag, index, all) => flag !== "--import" && !(all[index - 1] === "--import" && flag === "tsx"),
  );
  if (!flags.includes("--expose-gc")) flags.push("--expose-gc");
  const result = spawnSync(process.execPath, [...flags, compiledPart(part), ...args], {
    stdio: "inherit",
    env: {
      ...process.env,
      ...(process.env.BENCH_MALLOC === "glibc" ? {} : imageAllocatorEnv()),
      BENCH_RESULTS_DIR: REPO_RESULTS_DIR,
    },
  });
  return result.status ?? 1;
}

/** argv without `--compiled` / `--compiled=…` (the compiled child must not build again). */
function withoutCompiledFlag(argv: readonly string[]): string[] {
  return argv.filter((arg) => arg !== "--compiled" && !arg.startsWith("--compiled="));
}

/**
 * A bench part's entry: `main` here, or with `compiled` (its --compiled option) from the TypeScript sources, the
 * part built and run compiled in a child with the same options. A failure exits with 1.
 */
export function runPart(part: string, compiled: boolean, main: () => Promise<void>): void {
  if (compiled && !runningCompiled) {
    process.exitCode = runCompiled(part, withoutCompiledFlag(process.argv.slice(2)));
    return;
  }
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
