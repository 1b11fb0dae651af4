import { z } from "zod";
import { badRequest, zodMessage } from "#src/standins/sandbox/http/errors.js";
import type { HandlerResult, RequestContext } from "#src/standins/sandbox/http/router.js";

export function ok(data: unknown, message?: string, extra: Partial<HandlerResult> = {}): HandlerResult {
  return { body: message === undefined ? { status: "ok", data } : { status: "ok", message, data }, ...extra };
}

/** Query parameters as a plain object (first value wins), for zod. */
function queryObject(request: RequestContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of request.query) if (!(key in out)) out[key] = value;
  return out;
}

export function parseQuery<S extends z.ZodType>(schema: S, request: RequestContext): z.output<S> {
  const result = schema.safeParse(queryObject(request));
  if (!result.success) throw badRequest(zodMessage(result.error));
  return result.data;
}

export const uuidParam = z.string().trim().uuid("must be a UUID");
