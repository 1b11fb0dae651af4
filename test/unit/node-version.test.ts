import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * An older Node installs with only EBADENGINE warnings and then dies at start inside undici. The install
 * (preinstall) and every start script refuse it first with one sentence naming the version. An older Node is
 * played by a preload that makes process.versions.node say so, imported before the script's own --imports.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const manifest = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

const posingAs = (version: string) =>
  `data:text/javascript,${encodeURIComponent(
    `Object.defineProperty(process.versions, "node", { value: ${JSON.stringify(version)} });`,
  )}`;

/** Runs an npm script's `node …` command as npm would, with the Node version it sees replaced. */
function runScript(name: string, version?: string) {
  const script = manifest.scripts[name];
  expect(script, `package.json has no "${name}" script`).toBeDefined();
  const [command, ...args] = (script ?? "").split(" ");
  expect(command).toBe("node");
  const preload = version ? ["--import", posingAs(version)] : [];
  // A configuration the bot refuses at once: a start that got past the check would say so, not hang.
  const env = { ...process.env, BOT_MODE: "sideways", REDIS_URL: "http://nope" };
  return spawnSync(process.execPath, [...preload, ...args], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    timeout: 10_000,
  });
}

describe("the Node version check", () => {
  it("is what package.json's engines ask for", () => {
    expect(manifest.engines.node).toBe(">=24.11");
  });

  it.each(["preinstall", "start", "start:prod", "sandbox"])(
    "refuses Node 20 in `npm run %s` with one sentence and exit code 1, before anything else loads",
    (name) => {
      const run = runScript(name, "20.20.2");
      expect(run.status).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr.trimEnd().split("\n")).toEqual([
        "payout-assistant-bot needs Node.js 24.11 or newer, and this is Node.js 20.20.2: " +
          "install Node 24 LTS (https://nodejs.org) and run it again.",
      ]);
    },
  );

  it.each([
    ["24.10.0", 1],
    ["23.11.0", 1],
    ["24.11.0", 0],
    ["25.0.0", 0],
  ])("takes Node %s as %s (exit code) at the boundary", (version, status) => {
    const run = runScript("preinstall", version);
    expect(run.status).toBe(status);
    if (status === 0) expect(run.stderr).toBe("");
    else expect(run.stderr).toContain("needs Node.js 24.11 or newer");
  });

  it("lets the Node that runs the tests through without a word", () => {
    const run = runScript("preinstall");
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 0,
      stdout: "",
      stderr: "",
    });
  });
});
