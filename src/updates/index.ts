export * from "./calls.ts";
export * from "./inbox.ts";
export * from "./polling.ts";
export * from "./webhook.ts";
