import { describe, expect, it } from "vitest";
import { dailyBarsSvg, renderDailyBars } from "#src/charts/daily-bars.js";
import { expectChartPng } from "../../support/png.ts";

const days = Array.from({ length: 14 }, (_, day) => `${day + 1}/11`);

describe("daily bar chart", () => {
  it("renders a busy chart as a PNG under 100 KB", async () => {
    const png = await renderDailyBars({
      title: "Orders per day",
      days,
      series: ["NG", "KE", "ZA", "GH", "NG buys"].map((label, index) => ({
        label,
        values: days.map((_, day) => (day * 37 + index * 11) % 300),
      })),
      failed: { label: "failed", values: days.map((_, day) => day % 5) },
      emptyLabel: "nothing",
    });
    expectChartPng(png);
  });

  it("renders an empty chart with its note, and labels with markup stay text", async () => {
    const input = {
      title: `Links <b>&</b> "orders"`,
      days,
      series: [{ label: "<paid>", values: days.map(() => 0) }],
      failed: { label: "not paid", values: days.map(() => 0) },
      emptyLabel: "No links created in these days.",
    };
    const svg = dailyBarsSvg(input);
    expect(svg).toContain("Links &#60;b&#62;&#38;&#60;/b&#62; &#34;orders&#34;");
    expect(svg).toContain("No links created in these days.");
    expect(svg).not.toContain("<paid>");
    expectChartPng(await renderDailyBars(input));
  });
});
