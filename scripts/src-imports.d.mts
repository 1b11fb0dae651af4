/** Rewrite "#src/…" in every .js file under `outDir`; `srcOutDir` is where src/ was compiled to. */
export function rewriteSrcImports(outDir: string, srcOutDir: string): void;
