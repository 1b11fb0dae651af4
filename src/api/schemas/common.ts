import { z } from "zod";

/**
 * Building blocks shared by the resource schemas. The API is tolerated, not trusted to be tidy: optional fields
 * may be absent or null, unknown fields are kept (looseObject), and amounts may arrive as numeric strings.
 */

const INTEGER_STRING = /^-?\d+(?:\.0+)?$/;

/**
 * An amount in integer minor units. Numbers and numeric strings ("1000000", "10000.00") are accepted; a fractional
 * or unsafe value is a validation issue (we never round money silently).
 */
export const minorAmount = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const number =
    typeof value === "number"
      ? value
      : INTEGER_STRING.test(value.trim())
        ? Number.parseInt(value, 10)
        : Number.NaN;
  if (!Number.isSafeInteger(number)) {
    ctx.addIssue({ code: "custom", message: "expected an integer amount of minor units" });
    return z.NEVER;
  }
  return number;
});

/** A rate or price (not an amount): a finite number, or a numeric string. */
export const rate = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const number = typeof value === "number" ? value : value.trim() === "" ? Number.NaN : Number(value);
  if (!Number.isFinite(number)) {
    ctx.addIssue({ code: "custom", message: "expected a number" });
    return z.NEVER;
  }
  return number;
});

/** A string the API sometimes sends as a number (account numbers must stay strings: leading zeros). */
export const stringish = z.union([z.string(), z.number()]).transform(String);

/** Optional field: absent or null both read as undefined. */
export function opt<T extends z.ZodType>(schema: T) {
  return schema
    .nullish()
    .transform((value): z.output<T> | undefined => value ?? undefined)
    .optional();
}

/** Optional list: absent or null read as []. */
export function list<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullish()
    .transform((value): z.output<T>[] => value ?? []);
}

/** A payload that is either a message string or an object (simulation, webhook test). */
export const messageOrObject = opt(z.union([z.string(), z.looseObject({})]));
