import type { z } from "zod";

/** An error with an HTTP status; rendered as {"status":"error","message"}. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message: string) => new ApiError(404, message);

/** One readable line out of zod issues: "amount is required; paymentCurrency: Invalid option …". */
export function zodMessage(error: z.ZodError): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.message === "is required" || /received undefined$/.test(issue.message)) {
      return path ? `${path} is required` : "A JSON object body is required";
    }
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  return parts.join("; ");
}

/** Validate with zod; any problem is a 400 with a precise message (never a 500). */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw badRequest(zodMessage(result.error));
  return result.data;
}
