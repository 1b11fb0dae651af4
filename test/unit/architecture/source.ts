import ts from "typescript";

/** A TypeScript file parsed once; every checker here reads the syntax tree, never the raw text with patterns. */
export function parse(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/** Every node of a file, depth first. */
export function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

/** The text of every comment of a TypeScript file (line and block comments, each once). */
export function commentsOf(path: string, text: string): string[] {
  const file = parse(path, text);
  const seen = new Set<number>();
  const found: string[] = [];
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      found.push(text.slice(range.pos, range.end));
    }
  };
  walk(file, (node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
  });
  return found;
}
