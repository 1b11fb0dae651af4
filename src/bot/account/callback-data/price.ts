import { defineCallbackData, oneOf } from "../../flow/callback-data.ts";

/** /price country switcher: "price:<NG|KE|ZA|GH>". */
export const priceData = defineCallbackData("price", { country: oneOf("NG", "KE", "ZA", "GH") });
