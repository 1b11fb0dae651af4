export * from "./body.ts";
export * from "./server.ts";
