import { COUNTRIES } from "#src/money/index.js";
import { defineCallbackData, oneOf } from "#src/telegram/callback-data.js";

/** /price country switcher: "price:<NG|KE|ZA|GH>". */
export const priceData = defineCallbackData("price", { country: oneOf(...COUNTRIES) });
