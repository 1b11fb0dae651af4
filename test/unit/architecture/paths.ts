/**
 * Repository paths named in prose (comments, docs): `src/…`, `test/…`, `bench/…`, `docs/…`, `locales/…` and
 * `deploy/…`, with or without an extension. A path counts where it starts a word (not inside a URL or after
 * another folder) and runs to the first character a path does not hold.
 */
const NAMED_PATH = /(?<![\w./#@-])(?:src|test|bench|docs|locales|deploy)\/[\w.<>*{}…/-]*/g;
/** A segment that stands for many (`<lng>`, `*`, `{a,b}`, `…`): the path is a pattern. */
const PLACEHOLDER = /<[^>/]*>|\*|\{[^}/]*\}|…/;

export function namedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const [match] of text.matchAll(NAMED_PATH)) {
    // Sentence punctuation after a path is not part of it.
    const path = match.replace(/[.,:;)…-]+$/, "").replace(/\.{2,}.*$/, "");
    if (path.includes("/")) found.add(path);
  }
  return [...found];
}

function patternOf(path: string): RegExp {
  const source = path
    .split(PLACEHOLDER_SPLIT)
    .map((part, i) => (i % 2 === 1 ? placeholderRegex(part) : part.replace(/[.+?^$()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}(?:/.*)?$`);
}
const PLACEHOLDER_SPLIT = /(<[^>/]*>|\*|\{[^}/]*\}|…)/;
function placeholderRegex(part: string): string {
  if (part === "…") return ".*";
  if (part.startsWith("{")) {
    return `(?:${part
      .slice(1, -1)
      .split(",")
      .map((alt) => alt.trim().replace(/[.+?^$()|[\]\\]/g, "\\$&"))
      .join("|")})`;
  }
  return "[^/]+";
}

/** Extensions a path may leave off in prose: `src/store/keys` for src/store/keys.ts. */
const EXTENSIONS = [".ts", ".md", ".json", ".mjs", ".js", ".sh", ".yml", ".yaml"];

/**
 * Whether a named path exists among `existing` (every file and folder of the repository, without trailing slashes).
 * A folder path (`src/bot/flow/`) must be a folder or a file; `x.js` may name the `x.ts` an import compiles from; a
 * pattern (`locales/<lng>/payout.json`, `locales/<lng>/*.json`) must match at least one path.
 */
export function pathExists(path: string, existing: ReadonlySet<string>): boolean {
  const bare = path.replace(/\/+$/, "");
  if (PLACEHOLDER.test(bare)) {
    const pattern = patternOf(bare);
    for (const candidate of existing) if (pattern.test(candidate)) return true;
    return false;
  }
  if (existing.has(bare)) return true;
  if (bare.endsWith(".js") && existing.has(`${bare.slice(0, -3)}.ts`)) return true;
  return EXTENSIONS.some((extension) => existing.has(`${bare}${extension}`));
}

/**
 * Paths named from inside a folder (`store/keys.ts`, `ops/treasury/commands.ts`): a folder and a file name with an
 * extension, not starting at one of the roots above. Prose names them relative to some folder, so one counts when
 * some path of the repository ends with it.
 */
const PARTIAL_PATH = /(?<![\w./#@<>*-])(?:[\w-]+\/)+[\w-]+(?:\.[\w-]+)*\.(?:ts|mjs|json|md)\b/g;
const ROOTED = /^(?:src|test|bench|docs|locales|deploy)\//;

export function partialPaths(text: string): string[] {
  return [...new Set([...text.matchAll(PARTIAL_PATH)].map(([match]) => match))].filter(
    (path) => !ROOTED.test(path),
  );
}

function partialPathExists(path: string, existing: ReadonlySet<string>): boolean {
  const tails = [path, path.replace(/\.js$/, ".ts")];
  for (const candidate of existing) {
    if (tails.some((tail) => candidate === tail || candidate.endsWith(`/${tail}`))) return true;
  }
  return false;
}

/** The paths a text names that do not exist, as "where: path". */
export function stalePaths(where: string, text: string, existing: ReadonlySet<string>): string[] {
  const rooted = namedPaths(text).filter((path) => !pathExists(path, existing));
  const partial = partialPaths(text).filter((path) => !partialPathExists(path, existing));
  return [...rooted, ...partial].map((path) => `${where}: ${path}`);
}
