/** A Telegram-shaped failure: the emulator answers `{ ok: false, error_code, description, parameters? }`. */
export class TelegramApiError extends Error {
  constructor(
    readonly errorCode: number,
    readonly description: string,
    readonly parameters?: { retry_after?: number; migrate_to_chat_id?: number },
  ) {
    super(description);
    this.name = "TelegramApiError";
  }

  toJSON() {
    return {
      ok: false as const,
      error_code: this.errorCode,
      description: this.description,
      ...(this.parameters ? { parameters: this.parameters } : {}),
    };
  }
}

/** 400 with Telegram's "Bad Request: " prefix. */
export const badRequest = (detail: string) => new TelegramApiError(400, `Bad Request: ${detail}`);
export const forbidden = (detail: string) => new TelegramApiError(403, `Forbidden: ${detail}`);
export const conflict = (detail: string) => new TelegramApiError(409, `Conflict: ${detail}`);
export const notFound = () => new TelegramApiError(404, "Not Found");
export const unauthorized = () => new TelegramApiError(401, "Unauthorized");
export const tooManyRequests = (retryAfter: number) =>
  new TelegramApiError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });

/** Default descriptions for injected faults, as Telegram words them. */
export function describeStatus(status: number): string {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 413:
      return "Request Entity Too Large";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return status >= 500 ? "Internal Server Error" : "Bad Request";
  }
}

export const QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid";
export const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";
