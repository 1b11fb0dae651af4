import { defineCallbackData } from "./define.ts";

/** The clock picker under /language: a corridor code (NG, KE, ZA, GH), checked against the list when pressed. */
export const clockData = defineCallbackData("clock", { zone: String });
