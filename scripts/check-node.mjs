// Refuses a Node.js older than package.json's `engines.node` with one sentence and exit code 1. An older Node
// installs with nothing but EBADENGINE warnings and then dies at start deep inside undici, so this runs as npm's
// preinstall and as the first --import of the start scripts, before anything else is loaded. Plain JavaScript
// that any Node since 16 parses.
import { readFileSync } from "node:fs";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const range = String(manifest.engines?.node ?? "");
const needed = /^>=\s*(\d+)\.(\d+)/.exec(range);
if (!needed)
  throw new Error(`scripts/check-node.mjs reads only ">=major.minor" in engines.node, not "${range}"`);

const running = process.versions.node;
const [major, minor] = running.split(".").map(Number);
const [neededMajor, neededMinor] = [Number(needed[1]), Number(needed[2])];
if (major < neededMajor || (major === neededMajor && minor < neededMinor)) {
  process.stderr.write(
    `${manifest.name} needs Node.js ${neededMajor}.${neededMinor} or newer, and this is Node.js ${running}: ` +
      `install Node ${neededMajor} LTS (https://nodejs.org) and run it again.\n`,
  );
  process.exit(1);
}
