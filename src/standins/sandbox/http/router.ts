import type { IncomingHttpHeaders } from "node:http";

/** A request as handlers see it: parsed query and (for POST/PUT) parsed JSON body. */
export interface RequestContext {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  params: Record<string, string>;
  body: unknown;
}

export interface HandlerResult {
  status?: number;
  /** Serialised as JSON unless `raw` is set. */
  body?: unknown;
  raw?: { contentType: string; text: string };
  headers?: Record<string, string>;
  /** Runs synchronously right after the response is written (e.g. the payout after a pay-in). */
  after?: () => void;
}

type Handler = (request: RequestContext) => HandlerResult | Promise<HandlerResult>;

type Access = "key" | "public";

interface Route {
  method: string;
  pattern: string;
  access: Access;
  handler: Handler;
}

interface CompiledRoute extends Route {
  segments: string[];
}

type Match =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

/** Exact paths with optional `:name` segments; nothing more is needed here. */
export class Router {
  private readonly routes: CompiledRoute[] = [];

  add(method: string, pattern: string, access: Access, handler: Handler): this {
    this.routes.push({ method, pattern, access, handler, segments: pattern.split("/") });
    return this;
  }

  match(method: string, path: string): Match {
    const segments = path.split("/");
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method) return { kind: "found", route, params };
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index += 1) {
    const expected = pattern[index] ?? "";
    const got = actual[index] ?? "";
    if (expected.startsWith(":")) {
      if (!got) return undefined;
      params[expected.slice(1)] = decodeURIComponent(got);
    } else if (expected !== got) {
      return undefined;
    }
  }
  return params;
}
