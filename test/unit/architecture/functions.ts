import ts from "typescript";
import { parse, walk } from "./source.ts";

/** A function's name as a reader finds it: its own name, the variable or property it is assigned to, or its line. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText();
  }
  return "(anonymous)";
}

/**
 * Functions longer than `max` lines, first to last line inclusive: function declarations and expressions, arrow
 * functions, methods, constructors and accessors.
 */
export function longFunctions(path: string, text: string, max: number): string[] {
  const file = parse(path, text);
  const found: string[] = [];
  walk(file, (node) => {
    if (
      !ts.isFunctionDeclaration(node) &&
      !ts.isFunctionExpression(node) &&
      !ts.isArrowFunction(node) &&
      !ts.isMethodDeclaration(node) &&
      !ts.isConstructorDeclaration(node) &&
      !ts.isGetAccessorDeclaration(node) &&
      !ts.isSetAccessorDeclaration(node)
    ) {
      return;
    }
    if (!node.body) return;
    const first = file.getLineAndCharacterOfPosition(node.getStart()).line;
    const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
    const lines = last - first + 1;
    if (lines > max) found.push(`${path}:${first + 1} ${nameOf(node)} (${lines} lines)`);
  });
  return found;
}
