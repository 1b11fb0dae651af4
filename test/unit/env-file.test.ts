import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EnvFileError, loadEnvFile } from "#src/env-file.js";

const dir = mkdtempSync(join(tmpdir(), "env-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("loadEnvFile (in process; the spawned entry points are in test/local/env-file.test.ts)", () => {
  it("accepts comments, blank lines, export, quotes and a quoted value spanning lines", () => {
    const path = file(
      "ok.env",
      '# comment\n\nexport ENVFILE_A=1\nENVFILE_B = "two words"\nENVFILE_C="line one\nline two"\nENVFILE_D=\n',
    );
    expect(loadEnvFile(path)).toBe(true);
    expect(process.env.ENVFILE_A).toBe("1");
    expect(process.env.ENVFILE_B).toBe("two words");
    expect(process.env.ENVFILE_C).toBe("line one\nline two");
  });

  it("is a no-op without the file", () => {
    expect(loadEnvFile(join(dir, "missing.env"))).toBe(false);
  });

  it("names the first bad line and an unterminated quote", () => {
    expect(() => loadEnvFile(file("bad.env", "ENVFILE_E=1\n  not an assignment\n"))).toThrow(
      /line 2 is not NAME=value/,
    );
    expect(() => loadEnvFile(file("open.env", 'ENVFILE_F="never closed\nENVFILE_G=1\n'))).toThrow(
      EnvFileError,
    );
    expect(process.env.ENVFILE_E).toBeUndefined();
  });
});
