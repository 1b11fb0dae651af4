import type { Speed } from "#src/api/index.js";

/** The smallest on-chain settlement the API accepts (spec 8): buying bitcoin and payment links alike. */
export const MIN_ONCHAIN_SATS = 6_000;

/** On-chain speeds, slowest first (the order pickers show them in). */
export const SPEEDS: readonly Speed[] = ["slow", "medium", "fast"];
export const isSpeed = (value: unknown): value is Speed => SPEEDS.includes(value as Speed);
