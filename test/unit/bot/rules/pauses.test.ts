import type { TFunction } from "i18next";
import { beforeAll, describe, expect, it } from "vitest";
import {
  activePause,
  applyMaintenanceCommand,
  maintenanceNotice,
  parseMaintenanceCommand,
  pausedScopes,
  retryText,
} from "#src/bot/rules/pauses.js";
import { createTranslator } from "#src/i18n/index.js";
import { silentLogger } from "#src/log/logger.js";
import type { MaintenanceState } from "#src/store/index.js";

const NOW = Date.parse("2026-11-22T10:00:00Z");
const MINUTE = 60_000;

let t: TFunction;
beforeAll(async () => {
  t = (await createTranslator({ logger: silentLogger() })).t("en");
});

describe("/maintenance arguments", () => {
  it("reads scopes, a duration and the message, keeping the message's own spacing", () => {
    expect(parseMaintenanceCommand("")).toEqual({ mode: "status" });
    expect(parseMaintenanceCommand("on")).toEqual({ mode: "on", scopes: [] });
    expect(parseMaintenanceCommand("on Back at 14:00 <WAT>")).toEqual({
      mode: "on",
      scopes: [],
      message: "Back at 14:00 <WAT>",
    });
    expect(parseMaintenanceCommand("ON ng,ke  buy 90m  NIP is down,   sorry")).toEqual({
      mode: "on",
      scopes: ["NG", "KE", "BUY"],
      durationMs: 90 * MINUTE,
      message: "NIP is down,   sorry",
    });
    expect(parseMaintenanceCommand("on all 2h")).toEqual({
      mode: "on",
      scopes: [],
      durationMs: 120 * MINUTE,
    });
    expect(parseMaintenanceCommand("off")).toEqual({ mode: "off", scopes: [] });
    expect(parseMaintenanceCommand("off GH za")).toEqual({ mode: "off", scopes: ["GH", "ZA"] });
  });

  it("refuses what it cannot mean", () => {
    expect(parseMaintenanceCommand("pause NG")).toEqual({ mode: "invalid" });
    expect(parseMaintenanceCommand("off NG because")).toEqual({ mode: "invalid" });
    expect(parseMaintenanceCommand("on NG 0m")).toEqual({ mode: "invalid" });
    expect(parseMaintenanceCommand("on 49h")).toEqual({ mode: "invalid" });
  });
});

describe("pauses in effect", () => {
  const open: MaintenanceState = { paused: false };

  it("a corridor pause stops that corridor only; the pause of everything stops all", () => {
    const ng = applyMaintenanceCommand(open, { mode: "on", scopes: ["NG"], message: "NIP down" }, NOW, 7);
    expect(activePause(ng, "NG", NOW)).toEqual({ scope: "NG", message: "NIP down" });
    expect(activePause(ng, "KE", NOW)).toBeUndefined();
    expect(activePause(ng, undefined, NOW)).toBeUndefined();
    expect(pausedScopes(ng, NOW)).toEqual(["NG"]);

    const all = applyMaintenanceCommand(ng, { mode: "on", scopes: [] }, NOW, 7);
    expect(activePause(all, "KE", NOW)).toEqual({ scope: "all" });
    expect(activePause(all, undefined, NOW)).toEqual({ scope: "all" });

    const ngOff = applyMaintenanceCommand(all, { mode: "off", scopes: ["NG"] }, NOW, 8);
    expect(ngOff.paused).toBe(true);
    expect(pausedScopes(ngOff, NOW)).toEqual([]);
    const allOff = applyMaintenanceCommand(ng, { mode: "off", scopes: [] }, NOW, 8);
    expect(allOff).toEqual({ paused: false, since: new Date(NOW).toISOString(), by: 8 });
  });

  it("a pause with a duration lapses by itself and says how long is left", () => {
    const state = applyMaintenanceCommand(
      open,
      { mode: "on", scopes: ["BUY"], durationMs: 30 * MINUTE },
      NOW,
      7,
    );
    expect(activePause(state, "BUY", NOW + 10 * MINUTE)).toEqual({ scope: "BUY", retryInMs: 20 * MINUTE });
    expect(activePause(state, "BUY", NOW + 30 * MINUTE)).toBeUndefined();
    expect(pausedScopes(state, NOW + 31 * MINUTE)).toEqual([]);
  });
});

describe("the notice users get", () => {
  it("says what is paused, that the money is safe, and when to try again", () => {
    expect(maintenanceNotice(t, { scope: "all" })).toBe(
      "⏸ <b>New transfers are paused for a short maintenance.</b>\n" +
        "Orders already in progress continue as normal and your money is safe. Please try again a little later.",
    );
    const ng = maintenanceNotice(t, { scope: "NG", message: "NIP <down>", retryInMs: 29.2 * MINUTE });
    expect(ng).toContain("New transfers to Nigeria are paused");
    expect(ng).toContain("Please try again in 30 minutes.");
    expect(ng).toContain("NIP &lt;down&gt;");
    expect(maintenanceNotice(t, { scope: "BUY" })).toContain("Buying bitcoin is paused");
  });

  it("counts in minutes, then in hours", () => {
    expect(retryText(t, 10_000)).toBe("Please try again in 1 minute.");
    expect(retryText(t, 89 * MINUTE)).toBe("Please try again in 89 minutes.");
    expect(retryText(t, 90 * MINUTE)).toBe("Please try again in 2 hours.");
    expect(retryText(t, undefined)).toBe("Please try again a little later.");
  });
});
