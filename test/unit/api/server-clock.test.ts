import { describe, expect, it } from "vitest";
import { createPayoutApi, PayoutApiError, ServerClock } from "#src/api/index.js";
import { describeApiError, validationMessageKey } from "#src/bot/flow/api-errors.js";
import { createTranslator } from "#src/i18n/index.js";
import { createLogger } from "#src/log/logger.js";
import { startSandbox } from "#src/standins/sandbox/index.js";

describe("ServerClock: the API's time from its Date headers", () => {
  it("is our clock until an answer arrives, then our clock plus the server's offset", () => {
    let local = 1_000_000;
    const clock = new ServerClock(() => local);
    expect(clock.now()).toBe(local);
    // The server is 90 s ahead; its Date header has whole seconds.
    const server = (at: number) => new Date(Math.floor((at + 90_000) / 1000) * 1000).toUTCString();
    clock.observe(server(local + 20), local, local + 40);
    expect(Math.abs(clock.now() - (local + 90_000))).toBeLessThanOrEqual(1_000);
    // More answers narrow the interval: within half a second after a few.
    for (const step of [137, 411, 733, 959, 1_283]) {
      local += step;
      clock.observe(server(local + 5), local, local + 10);
    }
    expect(Math.abs(clock.now() - (local + 90_000))).toBeLessThanOrEqual(500);
  });

  it("follows a jump of the server's clock (an operator's fix, the sandbox's :advance)", () => {
    const local = 5_000_000;
    const clock = new ServerClock(() => local);
    clock.observe(new Date(local).toUTCString(), local - 10, local + 10);
    clock.observe(new Date(local + 6 * 60_000).toUTCString(), local - 10, local + 10);
    expect(Math.abs(clock.now() - (local + 6 * 60_000))).toBeLessThanOrEqual(1_000);
  });

  it("ignores a missing or unreadable header", () => {
    const clock = new ServerClock(() => 42);
    clock.observe(undefined, 0, 1);
    clock.observe("yesterday-ish", 0, 1);
    expect(clock.now()).toBe(42);
  });

  it("tracks the sandbox over real HTTP: after its clock is advanced the client sees it too", async () => {
    const sandbox = await startSandbox({ port: 0 });
    const clock = new ServerClock();
    const api = createPayoutApi({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, clock });
    try {
      await api.getUser();
      expect(Math.abs(clock.now() - sandbox.now())).toBeLessThanOrEqual(1_500);
      sandbox.advanceClock(6 * 60_000);
      await api.getUser();
      expect(Math.abs(clock.now() - sandbox.now())).toBeLessThanOrEqual(1_500);
    } finally {
      await api.close();
      await sandbox.close();
    }
  });
});

describe("API validation messages reach users only as our translated words", () => {
  it("maps the messages the service sends to a next step", () => {
    expect(validationMessageKey("Invalid quote ID")).toBe("quote:api.quote_invalid");
    expect(validationMessageKey("beneficiary.lnInvoice: Invoice expired")).toBe("quote:api.quote_invalid");
    expect(validationMessageKey("Quote already paid")).toBe("quote:api.already_paid");
    expect(validationMessageKey("Amount too small: minimum is 2000 NGN")).toBe("quote:api.amount_too_small");
    expect(validationMessageKey("Amount mismatch")).toBe("quote:api.amount_mismatch");
    expect(validationMessageKey("Insufficient Balance")).toBe("quote:api.insufficient_balance");
    expect(validationMessageKey("Invalid account number")).toBe("quote:api.account_rejected");
    expect(validationMessageKey("Name Mismatch")).toBe("quote:api.account_rejected");
    expect(validationMessageKey("something new <b>")).toBe("quote:api.rejected");
    expect(validationMessageKey(undefined)).toBe("quote:api.rejected");
  });

  it("never shows the API's text, in any language", async () => {
    const translator = await createTranslator({ logger: createLogger({ level: "silent", pretty: false }) });
    const error = new PayoutApiError({
      kind: "validation",
      endpoint: "POST /simulation/pay-in",
      detail: "validation 400",
      apiMessage: "Invalid quote ID",
    });
    for (const language of ["en", "fr", "es", "sw", "yo", "ig", "ha", "pcm", "ak", "zu"] as const) {
      const { text, retryable } = describeApiError(error, translator.t(language));
      expect(text).not.toMatch(/Invalid quote ID|quote:api/);
      expect(text.length).toBeGreaterThan(20);
      expect(retryable).toBe(false);
    }
    expect(describeApiError(error, translator.t("en")).text).toMatch(/no longer valid.*Get a new quote/);
  });
});
