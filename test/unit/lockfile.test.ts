import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

interface LockedPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  optionalDependencies?: Record<string, string>;
}
const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, LockedPackage>;
};

/** Where npm would find `name` from the package at `path`: nested first, then each parent's, then the root. */
function resolvable(path: string, name: string): boolean {
  let base = path;
  for (;;) {
    if (lock.packages[`${base ? `${base}/` : ""}node_modules/${name}`]) return true;
    if (base === "") return false;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut === -1 ? "" : base.slice(0, cut);
  }
}

describe("package-lock.json", () => {
  it("locks every platform's optional package, so `npm ci` accepts it on any machine", () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolvable(path, name)) missing.push(`${name} (wanted by ${path || "the root"})`);
      }
    }
    // An `npm install` against a registry that lacks other platforms' binaries drops their entries, and `npm ci`
    // then refuses the lock everywhere ("Missing: … from lock file"): add the entries back (version, os, cpu).
    expect(missing).toEqual([]);
  });

  it("keeps local-mode and build tools out of the production install", () => {
    for (const name of ["ioredis-mock", "fengari", "pino-pretty", "typescript", "tsx", "vitest"]) {
      const entry = lock.packages[`node_modules/${name}`];
      expect(entry, name).toBeDefined();
      // devOptional: only an optional peer outside dev (TypeScript for i18next); `npm ci --omit=dev --omit=optional`.
      expect(entry?.dev === true || entry?.devOptional === true, name).toBe(true);
    }
  });
});
