export * from "./callback-data.ts";
export * from "./facts.ts";
export * from "./mapping.ts";
export * from "./receipt.ts";
export * from "./status-card.ts";
export * from "./quote-math.ts";
