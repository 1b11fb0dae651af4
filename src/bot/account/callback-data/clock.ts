import { COUNTRIES } from "../../../money/index.ts";
import { defineCallbackData, oneOf } from "../../../telegram/callback-data.ts";

/** The clock picker under /language: a corridor code (NG, KE, ZA, GH). */
export const clockData = defineCallbackData("clock", { zone: oneOf(...COUNTRIES) });
