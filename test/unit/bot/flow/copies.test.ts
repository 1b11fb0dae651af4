import { describe, expect, it } from "vitest";
import { isCopy } from "#src/bot/flow/wait.js";

/** Copy adoption (docs/bot.md, "Copies of a screen"): which pressed messages count as the current screen. */
describe("a copy of the current screen", () => {
  it("is a message sent after the previous screen and before the current one", () => {
    expect(isCopy(11, { previous: 10, current: 12 })).toBe(true);
    expect(isCopy(5, { previous: undefined, current: 12 })).toBe(true);
  });

  it("is not the previous screen, anything older, the current screen or anything newer", () => {
    expect(isCopy(10, { previous: 10, current: 12 })).toBe(false);
    expect(isCopy(9, { previous: 10, current: 12 })).toBe(false);
    expect(isCopy(12, { previous: 10, current: 12 })).toBe(false);
    expect(isCopy(13, { previous: 10, current: 12 })).toBe(false);
  });

  it("needs a pressed message and a current screen", () => {
    expect(isCopy(undefined, { previous: 10, current: 12 })).toBe(false);
    expect(isCopy(11, { previous: undefined, current: undefined })).toBe(false);
  });
});
