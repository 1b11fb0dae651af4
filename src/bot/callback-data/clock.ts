import { defineCallbackData, oneOf } from "./define.ts";

/** The clock picker under /language: a corridor code (NG, KE, ZA, GH). */
export const clockData = defineCallbackData("clock", { zone: oneOf("NG", "KE", "ZA", "GH") });
