import { createHmac } from "node:crypto";
import { readFile } from "node:fs/promises";
import { sign } from "@telegram-apps/init-data-node";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { UserDriver } from "../support/telegram-driver.ts";
import { ask, type OpsStack, startOpsStack } from "./admin-stack.ts";

/**
 * The merchant Mini App in a real headless Chromium against the whole bot: init data signed with the emulator's bot
 * token, the merchant's own links, filters and totals, the CSV against the table, a link created on the page and
 * read back through /links, and the API's answers to forged, expired and another bot's init data.
 */
const ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
const LIGHT = { bg_color: "#ffffff", text_color: "#000000", hint_color: "#707579", button_color: "#2481cc" };
const DARK = {
  bg_color: "#17212b",
  text_color: "#f5f5f5",
  hint_color: "#708499",
  button_color: "#5288c1",
  secondary_bg_color: "#232e3c",
  link_color: "#6ab3f3",
};

describe("merchant Mini App in a browser", () => {
  let ops: OpsStack;
  let shopA: UserDriver;
  let shopB: UserDriver;
  let browser: Browser;
  let page: Page;
  let errors: string[] = [];

  const initData = (userId: number, token = ops.stack.tg.token, at = new Date()) =>
    sign({ user: { id: userId, first_name: "Shop", language_code: "en" } as never }, token, at);
  const pageUrl = (data: string, theme: object = LIGHT) =>
    `${ops.stack.app.httpUrl}/miniapp/#tgWebAppData=${encodeURIComponent(data)}` +
    `&tgWebAppThemeParams=${encodeURIComponent(JSON.stringify(theme))}&tgWebAppVersion=8.0`;
  const tableRows = async () =>
    Promise.all(
      (await page.locator("#rows tbody tr").all()).map((row) => row.locator("td").allTextContents()),
    );
  /** Waits until the element shows the text (the page's CSP rules out evaluated expressions). */
  const until = (selector: string, hasText: RegExp | string) =>
    page.locator(selector, { hasText }).first().waitFor();

  async function open(userId: number, theme: object = LIGHT): Promise<void> {
    page = await browser.newPage({ viewport: { width: 360, height: 1100 }, acceptDownloads: true });
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pageUrl(initData(userId), theme));
    await page.waitForSelector("#dashboard:not([hidden])");
    await until("#total-count", /\S/);
  }

  beforeAll(async () => {
    // An https PUBLIC_URL, as production needs for the button; the page itself is reached on the local port.
    ops = await startOpsStack({ env: { PUBLIC_URL: "https://bot.example" } });
    const { tg } = ops.stack;
    shopA = tg.user({ id: 8_601, first_name: "Ade", username: "ade_shop", language_code: "en" });
    shopB = tg.user({ id: 8_602, first_name: "Bola", username: "bola_shop", language_code: "en" });
    for (const shop of [shopA, shopB]) {
      await shop.send("/links");
      await shop.nextMessage({ match: /for approved merchants/ });
    }
    expect((await ask(ops.group, ops.ada, "/merchant approve @ade_shop")).text).toMatch(/is now a merchant/);
    expect((await ask(ops.group, ops.ada, "/merchant approve @bola_shop")).text).toMatch(/is now a merchant/);
    const links = ops.stack.app.store.paymentLinks;
    const base = { address: ADDRESS, speed: "fast" as const, url: "https://pay.example/x" };
    await links.create({
      ...base,
      ref: "a0000001-0000-4000-8000-000000000001",
      merchantId: 8_601,
      name: "=Ankara <fabric>",
      amount: 2_500_000,
    });
    await links.create({
      ...base,
      ref: "a0000002-0000-4000-8000-000000000002",
      merchantId: 8_601,
      name: "Shoes",
      amount: 1_200_000,
    });
    await links.advance("a0000002-0000-4000-8000-000000000002", { status: "paid", receivedSats: 14_250 });
    await links.create({
      ...base,
      ref: "a0000003-0000-4000-8000-000000000003",
      merchantId: 8_601,
      name: "Bag",
      amount: 800_000,
    });
    await links.advance("a0000003-0000-4000-8000-000000000003", { status: "settled", receivedSats: 9_100 });
    await links.create({
      ...base,
      ref: "b0000001-0000-4000-8000-000000000001",
      merchantId: 8_602,
      name: "B's secret",
      amount: 100_000,
    });
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox"],
      headless: true,
    });
  }, 60_000);
  afterEach(async () => {
    await page?.close();
    expect(errors).toEqual([]);
    errors = [];
  });
  afterAll(async () => {
    await browser?.close();
    await ops?.stop();
  });

  it("shows the merchant's own links with both currencies, escaped, and nobody else's", async () => {
    await open(8_601);
    const rows = await tableRows();
    expect(rows.map((row) => row[5])).toEqual([
      "a0000003-0000-4000-8000-000000000003",
      "a0000002-0000-4000-8000-000000000002",
      "a0000001-0000-4000-8000-000000000001",
    ]);
    expect(rows[2]?.[1]).toBe("=Ankara <fabric>");
    expect(rows[1]).toContain("₦12,000.00");
    expect(rows[1]?.[4]).toMatch(/14,250/);
    expect(await page.textContent("#total-count")).toBe("3 (2)");
    expect(await page.content()).not.toContain("b0000001-0000-4000-8000-000000000001");
    // The period the server applied (the last 30 days) is in the date inputs.
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    expect(await page.inputValue("#filter input[name=from]")).toBe(day(Date.now() - 29 * 86_400_000));
    expect(await page.inputValue("#filter input[name=to]")).toBe(day(Date.now()));
    // At 360 px every cell of a payment is on screen, and no total breaks inside its amount.
    for (const box of await Promise.all(
      (await page.locator("#rows tbody tr td").all()).map((td) => td.boundingBox()),
    )) {
      expect(box && box.x >= 0 && box.x + box.width <= 360).toBe(true);
    }
    const heights = await Promise.all(
      ["#total-count", "#total-paid", "#total-sats"].map(
        async (id) => (await page.locator(id).boundingBox())?.height,
      ),
    );
    expect(new Set(heights).size).toBe(1);
    await page.close();

    await open(8_602);
    expect((await tableRows()).map((row) => row[5])).toEqual(["b0000001-0000-4000-8000-000000000001"]);
    expect(await page.content()).not.toContain("a0000001");
  });

  it("filtering changes the rows and the totals, and the CSV download equals the table", async () => {
    await open(8_601);
    await page.selectOption("#filter select[name=status]", "paid");
    await page.click("#filter button[type=submit]");
    await until("#total-count", /^1 \(1\)$/);
    expect(await page.textContent("#total-paid")).toBe("₦12,000.00");
    const rows = await tableRows();
    expect(rows.map((row) => row[5])).toEqual(["a0000002-0000-4000-8000-000000000002"]);

    await page.selectOption("#filter select[name=status]", "");
    await page.click("#filter button[type=submit]");
    await until("#total-count", /^3 \(2\)$/);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#csv")]);
    const csv = (await readFile((await download.path()) ?? "", "utf8")).replace(/^\uFEFF/, "");
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("Date,Name,Status,Amount,sats,Reference");
    // The table's cells, with the name that starts like a formula kept as text (a leading quote) in the CSV.
    const table = (await tableRows()).map((row) =>
      row
        .map((cell) => (/^[=+\-@]/.test(cell) ? `'${cell}` : cell))
        .map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell))
        .join(","),
    );
    expect(lines.slice(1)).toEqual(table);
  });

  it("a link created on the page shows up in /links", async () => {
    await open(8_601);
    await page.fill("#create input[name=name]", "Mini App tote");
    await page.fill("#create input[name=amount]", "30000");
    await page.fill("#create input[name=address]", ADDRESS);
    await page.click("#create button[type=submit]");
    await until("#create-result", /\S{20,}/);
    expect(await page.textContent("#create-result")).toMatch(/^Link created: [0-9a-f-]{36}$/);
    await until("#rows tbody tr", "Mini App tote");
    await shopA.send("/links");
    const list = await shopA.nextMessage({ match: /Mini App tote/ });
    expect(list.text).toContain("₦30,000.00");
    const button = list.reply_markup?.inline_keyboard.flat().find((key) => "web_app" in key);
    expect(button && "web_app" in button ? button.web_app?.url : "").toBe("https://bot.example/miniapp/");
  });

  it("forged, expired or another bot's init data gets 401 and no data; a revoked merchant loses access at once", async () => {
    const api = `${ops.stack.app.httpUrl}/miniapp/api/links`;
    const get = (data: string) => fetch(api, { headers: { authorization: `tma ${data}` } });
    const good = initData(8_601);
    const forged = good.replace(/user=[^&]+/, `user=${encodeURIComponent(JSON.stringify({ id: 8_602 }))}`);
    const expired = initData(8_601, ops.stack.tg.token, new Date(Date.now() - 3_700_000));
    const otherBot = initData(8_601, "123456:another-bots-token");
    const hashOnly = `user=${encodeURIComponent('{"id":8601}')}&auth_date=${Math.floor(Date.now() / 1000)}`;
    const selfSigned = `${hashOnly}&hash=${createHmac("sha256", "x").update(hashOnly).digest("hex")}`;
    for (const data of [forged, expired, otherBot, selfSigned, ""]) {
      const response = await get(data);
      expect(response.status).toBe(401);
      expect(await response.text()).toBe('{"error":"unauthorized"}');
    }
    expect((await get(good)).status).toBe(200);
    // Approval gave Bola's chat the Mini App as its menu button; revoking takes it back to the command list.
    const menuOf = (chatId: number) => ops.stack.app.bot.api.getChatMenuButton({ chat_id: chatId });
    expect(await menuOf(8_602)).toEqual({
      type: "web_app",
      text: "📊 Open dashboard",
      web_app: { url: "https://bot.example/miniapp/" },
    });
    expect((await ask(ops.group, ops.ada, "/merchant revoke @bola_shop")).text).toBeTruthy();
    expect(await menuOf(8_602)).toEqual({ type: "commands" });
    const revoked = await get(initData(8_602));
    expect(revoked.status).toBe(401);
    expect(await revoked.text()).not.toContain("b0000001");
  });

  it.runIf(process.env.MINIAPP_SCREENSHOTS === "1")(
    "screenshots of the dashboard, light and dark",
    async () => {
      for (const [name, theme] of [
        ["light", LIGHT],
        ["dark", DARK],
      ] as const) {
        await open(8_601, theme);
        await page.screenshot({ path: `docs/miniapp-${name}.png`, fullPage: true });
        await page.close();
      }
    },
  );
});
