export * from "./body.ts";
export { createMetricsServer, type MetricsServer } from "./metrics-server.ts";
export * from "./server.ts";
