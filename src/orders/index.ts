export * from "./callback-data.ts";
export * from "./facts.ts";
export * from "./mapping.ts";
export * from "./quote-lines.ts";
export * from "./quote-math.ts";
export * from "./receipt.ts";
export * from "./refund.ts";
export * from "./status-card.ts";
