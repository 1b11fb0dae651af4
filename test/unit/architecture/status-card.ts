import ts from "typescript";
import { parse, walk } from "./source.ts";

/**
 * Calls of the given functions (the status card's renderer and, where it has them, its send and edit functions) by
 * name, as `name(…)` or `something.name(…)`: "path:line name".
 */
export function callsOf(path: string, text: string, names: string[]): string[] {
  const found: string[] = [];
  walk(parse(path, text), (node) => {
    if (!ts.isCallExpression(node)) return;
    const callee = node.expression;
    const name = ts.isIdentifier(callee)
      ? callee.text
      : ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : undefined;
    if (name === undefined || !names.includes(name)) return;
    const { line } = node.getSourceFile().getLineAndCharacterOfPosition(node.getStart());
    found.push(`${path}:${line + 1} ${name}`);
  });
  return found;
}
