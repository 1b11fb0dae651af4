import { defineCallbackData, oneOf } from "#src/telegram/callback-data.js";
import { STATEMENT_PERIODS } from "../statement/period.ts";

/**
 * /history's export: "stmt:periods" offers the periods, "stmt:<period>" exports one. Only the period travels: whose
 * orders, and where the file goes, is always the presser.
 */
export const statementData = defineCallbackData("stmt", { choice: oneOf("periods", ...STATEMENT_PERIODS) });
