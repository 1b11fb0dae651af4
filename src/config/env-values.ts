import { z } from "zod";

/** How one environment value is read: empty counts as unset; lists, URLs and flags are checked and typed. */

export const emptyToUndefined = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;
export const optionalString = z.preprocess(emptyToUndefined, z.string().trim().optional());
export const httpUrl = z
  .string()
  .trim()
  .url("must be a URL such as https://example.com")
  .refine((value) => /^https?:\/\//i.test(value), "must start with http:// or https://")
  // grammY builds `${apiRoot}/bot${token}/…`; a trailing slash would double it.
  .transform((value) => value.replace(/\/+$/, ""));
export const optionalUrl = z.preprocess(emptyToUndefined, httpUrl.optional());

export const integerList = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return [] as number[];
      const parts = value
        .split(/[\s,]+/)
        .map((part) => part.trim())
        .filter(Boolean);
      const ids: number[] = [];
      for (const part of parts) {
        if (!/^-?\d+$/.test(part)) {
          ctx.addIssue({ code: "custom", message: `"${part}" is not a Telegram user id (digits only)` });
          return z.NEVER;
        }
        ids.push(Number(part));
      }
      return ids;
    }),
);

export const booleanFlag = (fallback: boolean) =>
  z.preprocess(
    emptyToUndefined,
    z
      .enum(["true", "false", "1", "0", "yes", "no"], { message: "must be true or false" })
      .optional()
      .transform((value) => (value === undefined ? fallback : ["true", "1", "yes"].includes(value))),
  );
