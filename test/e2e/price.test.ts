import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "#src/store/index.js";
import { type Stack, startStack } from "../support/stack.ts";

/** Sandbox default prices: 1 BTC = 100,000 USD; 1 USD = 1,500 NGN / 130 KES / 18 ZAR / 12 GHS. */
const EXPECTED = {
  NG: { btc: "₦150,000,000.00", usd: "₦1,500.00", sats: "₦15,000.00", name: "Nigeria", zone: "WAT" },
  KE: { btc: "KSh 13,000,000.00", usd: "KSh 130.00", sats: "KSh 1,300.00", name: "Kenya", zone: "EAT" },
  ZA: { btc: "R 1,800,000.00", usd: "R 18.00", sats: "R 180.00", name: "South Africa", zone: "SAST" },
  GH: { btc: "GH₵ 1,200,000.00", usd: "GH₵ 12.00", sats: "GH₵ 120.00", name: "Ghana", zone: "GMT" },
} as const;

describe("/price", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it.each(Object.entries(EXPECTED))(
    "shows %s: 1 BTC, 1 USD, 10,000 sats and when",
    async (country, expected) => {
      const user = stack.tg.user({ id: 7100 + Object.keys(EXPECTED).indexOf(country), language_code: "en" });
      await user.send(`/price ${country.toLowerCase()}`);
      const reply = await user.nextMessage({ match: "Bitcoin in" });
      expect(reply.text).toContain(`Bitcoin in ${expected.name}`);
      expect(reply.text).toContain(`1 BTC = ${expected.btc}`);
      expect(reply.text).toContain(`1 USD = ${expected.usd}`);
      expect(reply.text).toContain(`10,000 sats = ${expected.sats}`);
      // The API's timestamp, in the user's locale (en-NG) and the country's time zone.
      expect(reply.text).toMatch(
        new RegExp(`Updated \\d{1,2} \\w{3} \\d{4}, \\d{2}:\\d{2} ${expected.zone}`),
      );
      const buttons = reply.reply_markup?.inline_keyboard.flat().map((button) => button.text) ?? [];
      expect(buttons).toContain(`✅ ${{ NG: "🇳🇬", KE: "🇰🇪", ZA: "🇿🇦", GH: "🇬🇭" }[country]} ${country}`);
    },
  );

  it("switches country in place with the buttons", async () => {
    const user = stack.tg.user({ id: 7110, language_code: "en" });
    await user.send("/price");
    const screen = await user.nextMessage({ match: "Bitcoin in Nigeria" });
    const press = await user.press(screen, /🇰🇪/);
    await press.answer();
    const edited = await user.nextEdit(screen);
    expect(edited.text).toContain("Bitcoin in Kenya");
    expect(edited.text).toContain("1 BTC = KSh 13,000,000.00");
  });

  it("opens from the main menu", async () => {
    const user = stack.tg.user({ id: 7111, language_code: "en" });
    await user.send("/start");
    const menu = await user.nextMessage();
    await (await user.press(menu, "📈 Prices")).answer();
    expect((await user.nextMessage({ match: "Bitcoin in" })).text).toContain("1 BTC =");
  });

  it("caches prices in Redis for about 30 s", async () => {
    await stack.redis.del(keys.priceCache("NGN"));
    const user = stack.tg.user({ id: 7113, language_code: "en" });
    await user.send("/price NG");
    await user.nextMessage({ match: "Bitcoin in Nigeria" });
    const ttl = await stack.redis.ttl(keys.priceCache("NGN"));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30);
  });

  it("explains a bad argument and lists NG|KE|ZA|GH", async () => {
    const user = stack.tg.user({ id: 7112, language_code: "en" });
    await user.send("/price <usa>");
    const reply = await user.nextMessage();
    expect(reply.text).toContain("I don't know the country “<usa>”");
    for (const code of ["NG (Nigeria)", "KE (Kenya)", "ZA (South Africa)", "GH (Ghana)"])
      expect(reply.text).toContain(code);
  });
});
