import type { IncomingMessage } from "node:http";
import { Response } from "undici";
import { badRequest, TelegramApiError } from "./errors.ts";

interface UploadedFile {
  name: string;
  type: string;
  bytes: Buffer;
}

export type InputFileRef =
  | { kind: "upload"; file: UploadedFile }
  | { kind: "file_id"; fileId: string }
  | { kind: "url"; url: string };

/**
 * The parameters of one Bot API call, whatever the encoding (query, JSON, urlencoded, multipart).
 * Values from non-JSON encodings are strings; the accessors coerce them the way Telegram does.
 */
export class Params {
  constructor(
    readonly fields: Record<string, unknown>,
    readonly files: Map<string, UploadedFile> = new Map(),
  ) {}

  has(name: string): boolean {
    const value = this.fields[name];
    return value !== undefined && value !== null && value !== "";
  }

  optString(name: string): string | undefined {
    const value = this.fields[name];
    if (value === undefined || value === null) return undefined;
    return typeof value === "string" ? value : String(value);
  }

  string(name: string, missing = `${name} is empty`): string {
    const value = this.optString(name);
    if (value === undefined || value === "") throw badRequest(missing);
    return value;
  }

  optInt(name: string): number | undefined {
    const value = this.fields[name];
    if (value === undefined || value === null || value === "") return undefined;
    const number = typeof value === "number" ? value : Number(value);
    if (!Number.isInteger(number)) throw badRequest(`invalid ${name} specified`);
    return number;
  }

  int(name: string, missing = `${name} is empty`): number {
    const value = this.optInt(name);
    if (value === undefined) throw badRequest(missing);
    return value;
  }

  bool(name: string): boolean {
    const value = this.fields[name];
    return value === true || value === "true" || value === "1" || value === 1;
  }

  /** Telegram decodes object fields from JSON strings in non-JSON bodies. */
  json<T>(name: string): T | undefined {
    const value = this.fields[name];
    if (value === undefined || value === null || value === "") return undefined;
    if (typeof value !== "string") return value as T;
    try {
      return JSON.parse(value) as T;
    } catch {
      throw badRequest(`can't parse ${name} JSON object`);
    }
  }

  /** chat_id may be a number, a numeric string or "@username". */
  chatId(name = "chat_id"): number | string {
    const value = this.fields[name];
    if (value === undefined || value === null || value === "") throw badRequest("chat_id is empty");
    if (typeof value === "number") return value;
    const text = String(value);
    if (/^-?\d+$/.test(text)) return Number(text);
    return text;
  }

  /** A file field: an upload (direct or attach://name), a file_id, or an HTTP URL. */
  inputFile(name: string): InputFileRef | undefined {
    const direct = this.files.get(name);
    if (direct) return { kind: "upload", file: direct };
    const value = this.optString(name);
    if (value === undefined || value === "") return undefined;
    if (value.startsWith("attach://")) {
      const file = this.files.get(value.slice("attach://".length));
      if (!file) throw badRequest(`wrong file identifier/HTTP URL specified`);
      return { kind: "upload", file };
    }
    if (/^https?:\/\//i.test(value)) return { kind: "url", url: value };
    return { kind: "file_id", fileId: value };
  }

  /** A log-friendly copy: uploads summarized, JSON strings decoded. */
  toLog(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this.fields)) {
      if (typeof value === "string" && value.startsWith("attach://")) {
        const file = this.files.get(value.slice("attach://".length));
        out[key] = file ? { file: file.name, size: file.bytes.length } : value;
      } else if (typeof value === "string" && /^[[{]/.test(value)) {
        try {
          out[key] = JSON.parse(value);
        } catch {
          out[key] = value;
        }
      } else out[key] = value;
    }
    for (const [key, file] of this.files) {
      if (!(key in out) && !Object.values(this.fields).includes(`attach://${key}`))
        out[key] = { file: file.name, size: file.bytes.length };
    }
    return out;
  }
}

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Keep draining an oversized body (breaking out would reset the socket before the 413 is sent).
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= maxBytes) chunks.push(chunk as Buffer);
  }
  if (size > maxBytes) throw new TelegramApiError(413, "Request Entity Too Large");
  return Buffer.concat(chunks);
}

/** Merge the query string with a body in any encoding grammY (or curl) may use. */
export async function parseParams(
  contentType: string | undefined,
  body: Buffer,
  query: URLSearchParams,
): Promise<Params> {
  const fields: Record<string, unknown> = Object.fromEntries(query);
  const files = new Map<string, UploadedFile>();
  const type = (contentType ?? "").toLowerCase();
  if (body.length > 0) {
    if (type.startsWith("application/json")) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        throw badRequest("can't parse JSON");
      }
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) Object.assign(fields, parsed);
    } else if (type.startsWith("application/x-www-form-urlencoded")) {
      Object.assign(fields, Object.fromEntries(new URLSearchParams(body.toString("utf8"))));
    } else if (type.startsWith("multipart/form-data")) {
      // Node 20's global FormData rejects grammY's multipart; undici's Response parses it.
      let form: Awaited<ReturnType<Response["formData"]>>;
      try {
        form = await new Response(body, { headers: { "content-type": contentType ?? "" } }).formData();
      } catch {
        throw badRequest("can't parse multipart/form-data body");
      }
      for (const [key, value] of form) {
        if (typeof value === "string") fields[key] = value;
        else
          files.set(key, {
            name: value.name || key,
            type: value.type,
            bytes: Buffer.from(await value.arrayBuffer()),
          });
      }
    }
  }
  return new Params(fields, files);
}
