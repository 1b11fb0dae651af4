import { COUNTRIES } from "../../../money/index.ts";
import { defineCallbackData, oneOf } from "../../../telegram/callback-data.ts";

/** /price country switcher: "price:<NG|KE|ZA|GH>". */
export const priceData = defineCallbackData("price", { country: oneOf(...COUNTRIES) });
