// The sources import each other across folders through "#src/<path>.js" (package.json "imports", resolved to
// src/<path>.ts by TypeScript, tsx and Vitest). Compiled output has no src/ of TypeScript beside it, so after tsc
// every such specifier becomes a relative path to the compiled module.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*)"#src\/([^"]+)"/g;

/** Rewrite "#src/…" in every .js file under `outDir`; `srcOutDir` is where src/ was compiled to. */
export function rewriteSrcImports(outDir, srcOutDir) {
  for (const entry of readdirSync(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
    const file = join(entry.parentPath, entry.name);
    const code = readFileSync(file, "utf8");
    const rewritten = code.replace(SPECIFIER, (_, head, path) => {
      const target = relative(dirname(file), join(srcOutDir, path));
      return `${head}"${target.startsWith(".") ? target : `./${target}`}"`;
    });
    if (rewritten !== code) writeFileSync(file, rewritten);
  }
}
