import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_RETRY, parseRetryAfter } from "#src/api/retry.js";

describe("backoff", () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1_000 };

  it("doubles per retry within [step/2, step] and stops growing at the cap", () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, () => 1)).toBe(100);
    expect(backoffDelay(2, policy, () => 1)).toBe(200);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(300);
    expect(backoffDelay(10, policy, () => 1)).toBe(1_000);
  });
});

describe("Retry-After", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  it("reads delta-seconds and HTTP dates", () => {
    expect(parseRetryAfter("7", now)).toBe(7_000);
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter(["2"], now)).toBe(2_000);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 23:00:00 GMT", now)).toBe(0);
  });

  it("ignores absent or junk values", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});
