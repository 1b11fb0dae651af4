// Production build: tsc -p tsconfig.build.json (ESM, `./x.ts` imports rewritten to `./x.js`), then the runtime
// files the code reads relative to import.meta.url. Plain JavaScript so it runs before anything is compiled.
//
//   node scripts/build.mjs [--out-dir dist] [--no-check]
//
// --no-check emits without type checking (tsc --noCheck, about 3× faster; the output is the same because every
// file compiles in isolation): for tests and benches that only need the JavaScript. `npm run build` checks.
// Layout: <out-dir> sits beside locales/ (src/i18n reads ../../locales, so dist/i18n finds <root>/locales).
import { spawnSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { rewriteSrcImports } from "./src-imports.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: flags } = parseArgs({
  options: {
    "out-dir": { type: "string", default: "dist" },
    "no-check": { type: "boolean", default: false },
  },
});
const outDir = resolve(root, flags["out-dir"]);

/** Files read at run time through `new URL("…", import.meta.url)`, relative to src/. */
const ASSETS = ["standins/sandbox/data/banks.json"];

rmSync(outDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const noCheck = flags["no-check"] ? ["--noCheck"] : [];
const compiled = spawnSync(
  process.execPath,
  [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", outDir, ...noCheck],
  { stdio: "inherit" },
);
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
for (const asset of ASSETS) cpSync(join(root, "src", asset), join(outDir, asset));
rewriteSrcImports(outDir, outDir);
process.stderr.write(`build: ${outDir}\n`);
