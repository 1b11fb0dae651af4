import { INDEX_HTML } from "./html.ts";
import { APP_JS } from "./script.ts";
import { APP_CSS } from "./style.ts";

/** The Mini App's static files, served from memory. */
export const PAGE_FILES: ReadonlyMap<string, { type: string; body: string }> = new Map([
  ["/miniapp/", { type: "text/html; charset=utf-8", body: INDEX_HTML }],
  ["/miniapp/app.js", { type: "text/javascript; charset=utf-8", body: APP_JS }],
  ["/miniapp/app.css", { type: "text/css; charset=utf-8", body: APP_CSS }],
]);
