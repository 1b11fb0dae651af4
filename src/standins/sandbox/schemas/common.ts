import { z } from "zod";

/** Shared zod pieces with messages a client developer can act on. */

/** A required enum whose message lists the allowed values. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, {
    error: (issue) => (issue.input === undefined ? "is required" : `must be one of ${values.join(", ")}`),
  });
}

export function text(max = 256) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`);
}

export function digits(label: string, pattern: RegExp) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .trim()
    .regex(pattern, label);
}

const MAX_MINOR = 1_000_000_000_000_000n;

/**
 * An amount in minor units: an integer number or a string of digits ("200000"), > 0.
 * Floats ("1.5", 1.5) are refused: every amount is an integer number of minor units.
 */
export const minorAmount = z.unknown().transform((value, ctx): bigint => {
  if (value === undefined || value === null) {
    ctx.addIssue({ code: "custom", message: "is required" });
    return z.NEVER;
  }
  let textValue: string | undefined;
  if (typeof value === "number" && Number.isSafeInteger(value)) textValue = String(value);
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) textValue = value.trim();
  if (textValue === undefined) {
    ctx.addIssue({
      code: "custom",
      message: "must be a positive integer in minor units (kobo, cents, pesewas or sats), e.g. 200000",
    });
    return z.NEVER;
  }
  const amount = BigInt(textValue);
  if (amount <= 0n) {
    ctx.addIssue({ code: "custom", message: "must be greater than 0" });
    return z.NEVER;
  }
  if (amount > MAX_MINOR) {
    ctx.addIssue({ code: "custom", message: "is too large" });
    return z.NEVER;
  }
  return amount;
});

export const optionalBoolean = z.boolean({ error: "must be true or false" }).optional();

export const httpUrl = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  }, "must be an http(s) URL");
