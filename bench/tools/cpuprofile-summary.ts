import { readFileSync } from "node:fs";

/**
 * Where the CPU went, from a `node --cpu-prof` profile: self time by package/folder and by function, and inclusive
 * time of functions whose name matches a pattern. Used to write down what costs what when a target is missed.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --expose-gc --import tsx bench/journey.ts --users 300
 *   node --import tsx bench/tools/cpuprofile-summary.ts /tmp/prof/CPU.*.cpuprofile [--top 40] [--inclusive regex]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const file = args.find((arg) => !arg.startsWith("--"));
if (!file) {
  console.error("usage: cpuprofile-summary.ts <file.cpuprofile> [--top N] [--inclusive regex]");
  process.exit(2);
}
const topIndex = args.indexOf("--top");
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 40;
const inclusiveIndex = args.indexOf("--inclusive");
const inclusivePattern = inclusiveIndex >= 0 ? new RegExp(args[inclusiveIndex + 1] ?? "") : undefined;

const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const selfMs = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
});

function group(url: string, name: string): string {
  if (name === "(garbage collector)") return "(gc)";
  if (name === "(idle)" || name === "(program)") return name;
  if (!url) return "(native/builtin)";
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1] ?? url;
  const ours = /\/(src|bench|test)\/(.+?)(?:\/[^/]+)?$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.startsWith("node:")) return url.split("/")[0] ?? url;
  return url;
}

const groups = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
for (const [id, time] of selfMs) {
  const node = byId.get(id);
  if (!node) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  total += time;
  const name = group(url, functionName);
  groups.set(name, (groups.get(name) ?? 0) + time);
  const label = `${functionName || "(anonymous)"} ${url.replace(/^.*\/(node_modules|src|bench)\//, "$1/")}:${lineNumber + 1}`;
  functions.set(label, (functions.get(label) ?? 0) + time);
}

const busy = total - (groups.get("(idle)") ?? 0);
const line = (name: string, time: number) =>
  `| ${name} | ${time.toFixed(0)} ms | ${((100 * time) / busy).toFixed(1)}% |`;
const sorted = (map: Map<string, number>) => [...map.entries()].sort(([, a], [, b]) => b - a);

console.log(`Profile ${file}: ${total.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms not idle.\n`);
console.log("| Self time by package / folder | ms | % of busy |\n| --- | --- | --- |");
for (const [name, time] of sorted(groups).slice(0, top)) if (name !== "(idle)") console.log(line(name, time));
console.log("\n| Self time by function | ms | % of busy |\n| --- | --- | --- |");
for (const [name, time] of sorted(functions).slice(0, top))
  if (!name.startsWith("(idle)")) console.log(line(name, time));

if (inclusivePattern) {
  // Inclusive time: a sample counts once for every distinct matching frame on its stack.
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const node = byId.get(current);
      if (!node) break;
      const { functionName, url, lineNumber } = node.callFrame;
      const label = `${functionName} ${url.replace(/^.*\/(node_modules|src|bench)\//, "$1/")}:${lineNumber + 1}`;
      if (inclusivePattern.test(label) && !seen.has(label)) {
        seen.add(label);
        inclusive.set(label, (inclusive.get(label) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
      }
    }
  });
  console.log(`\n| Inclusive time matching ${inclusivePattern} | ms | % of busy |\n| --- | --- | --- |`);
  for (const [name, time] of sorted(inclusive).slice(0, top)) console.log(line(name, time));
}
