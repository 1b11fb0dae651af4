import ts from "typescript";
import { parse, walk } from "./source.ts";

/**
 * The key shapes of src/store/keys.ts: `prefixes` are the fixed heads of its template literals (`order:` of
 * `order:${orderId}`), `fixed` its whole keys with no interpolation (`orders:open`). Only shapes with a colon count:
 * a bare word such as "audit" says nothing about Redis on its own.
 */
export interface KeyShapes {
  prefixes: string[];
  fixed: string[];
}

export function keyShapesOf(keysSource: string): KeyShapes {
  const prefixes = new Set<string>();
  const fixed = new Set<string>();
  walk(parse("src/store/keys.ts", keysSource), (node) => {
    if (ts.isTemplateExpression(node) && node.head.text.includes(":")) prefixes.add(node.head.text);
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text.includes(":")) {
      fixed.add(node.text);
    }
  });
  return { prefixes: [...prefixes].sort(), fixed: [...fixed].sort() };
}

/** A key's own text: no dots (translation keys such as `refund:line.${…}`) and no spaces (sentences). */
const KEYLIKE = /^[A-Za-z0-9_:-]*$/;

/**
 * The Redis keys a file builds: a template literal whose fixed head starts with one of the store's prefixes and goes
 * on as a key does (`order:${id}`, `order:byhash:${hash}`), or a plain string that is one of its fixed keys or a bare
 * prefix to concatenate (`"order:" + id`). A plain string that merely starts with a prefix is a translation key
 * (`"ratealert:ask"`: namespace and key), and comments are not literals, so neither counts.
 */
export function redisKeysBuilt(path: string, text: string, shapes: KeyShapes): string[] {
  const found: string[] = [];
  // Every fixed part must read as a key (`merchant:${prefix}.${key}` is a translation key by its later dot).
  const builtByTemplate = (node: ts.TemplateExpression) =>
    [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].every((part) =>
      KEYLIKE.test(part),
    ) && shapes.prefixes.some((p) => node.head.text.startsWith(p));
  const builtByString = (literal: string) =>
    shapes.fixed.includes(literal) || shapes.prefixes.includes(literal);
  walk(parse(path, text), (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    const built = ts.isTemplateExpression(node)
      ? builtByTemplate(node)
      : (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && builtByString(node.text);
    if (built && !isModuleSpecifier(node)) {
      const { line } = node.getSourceFile().getLineAndCharacterOfPosition(node.getStart());
      found.push(`${path}:${line + 1} ${node.getText()}`);
    }
  });
  return found;
}

function isModuleSpecifier(node: ts.Node): boolean {
  const parent = node.parent;
  return (
    (parent !== undefined && (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent))) ||
    (parent !== undefined &&
      ts.isCallExpression(parent) &&
      parent.expression.kind === ts.SyntaxKind.ImportKeyword)
  );
}
