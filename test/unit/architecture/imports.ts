import { posix } from "node:path";
import ts from "typescript";
import { parse } from "./source.ts";

/** path → the repo paths it imports. */
export type ImportGraph = Map<string, string[]>;

/**
 * A specifier as a repo path: "./x.js" beside the importer and "#src/x.js" (package.json's alias of src/) become the
 * .ts file they name; a package import is undefined.
 */
export function resolveSpecifier(from: string, specifier: string): string | undefined {
  let target: string;
  if (specifier.startsWith("#src/")) target = `src/${specifier.slice(5)}`;
  else if (specifier.startsWith("./") || specifier.startsWith("../")) {
    target = posix.normalize(posix.join(posix.dirname(from), specifier));
  } else return undefined;
  return target.replace(/\.js$/, ".ts");
}

/**
 * What a file imports at load time: import declarations (type-only included) and re-exports. A dynamic import()
 * loads later, when called, so it closes no circle and is listed only when `dynamic` is set.
 */
export function importsOf(path: string, text: string, options: { dynamic?: boolean } = {}): string[] {
  const found: string[] = [];
  const add = (specifier: ts.Expression | undefined) => {
    if (!specifier || !ts.isStringLiteralLike(specifier)) return;
    const target = resolveSpecifier(path, specifier.text);
    if (target) found.push(target);
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (
      options.dynamic &&
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword
    ) {
      add(node.arguments[0]);
    }
    node.forEachChild(visit);
  };
  visit(parse(path, text));
  return found;
}

export function importGraph(files: Map<string, string>): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [path, text] of files) graph.set(path, importsOf(path, text));
  return graph;
}

/**
 * The import circles of a graph: each strongly connected component of more than one file (or a file importing
 * itself), as its sorted files joined by " ↔ " (Tarjan's algorithm, iterative so a deep graph cannot overflow).
 */
export function importCircles(graph: ImportGraph): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[] = [];
  let next = 0;
  const edges = (node: string) => (graph.get(node) ?? []).filter((target) => graph.has(target));
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = edges(frame.node);
      if (frame.edge < targets.length) {
        const target = targets[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfLoop = component.length === 1 && edges(frame.node).includes(frame.node);
      if (component.length > 1 || selfLoop) circles.push(component.sort().join(" ↔ "));
    }
  }
  return circles.sort();
}

/**
 * Imports by `from` of files inside a product folder of src/bot (src/bot/<product>/…) other than `allowed`: the
 * process's composition reaches the products only through their registry.
 */
export function productImports(
  from: string,
  imports: string[],
  products: string[],
  allowed: string[],
): string[] {
  return imports
    .filter((target) => {
      const folder = /^src\/bot\/([^/]+)\//.exec(target)?.[1];
      return folder !== undefined && products.includes(folder) && !allowed.includes(target);
    })
    .map((target) => `${from} → ${target}`);
}
