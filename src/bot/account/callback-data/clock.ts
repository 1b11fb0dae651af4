import { COUNTRIES } from "#src/money/index.js";
import { defineCallbackData, oneOf } from "#src/telegram/callback-data.js";

/** The clock picker under /language: a corridor code (NG, KE, ZA, GH). */
export const clockData = defineCallbackData("clock", { zone: oneOf(...COUNTRIES) });
