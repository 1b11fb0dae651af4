import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TELEGRAM_MENU_LANGUAGES } from "#src/bot/commands.js";
import { flattenKeys, LANGUAGES, loadResources } from "#src/i18n/index.js";
import type { ChatEvent } from "#src/standins/local/telegram-emulator/types.js";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";

/**
 * The NGN payout journey in every language, driven by button data (never by English text), from /send to the
 * status card the events pipeline edits to "completed": no raw keys and no English fallback anywhere.
 */
const resources = loadResources(new URL("../../locales", import.meta.url).pathname);

function leafStrings(tree: unknown): string[] {
  if (typeof tree === "string") return [tree];
  if (typeof tree !== "object" || tree === null) return [];
  return Object.values(tree as Record<string, unknown>).flatMap(leafStrings);
}

/** Sentence fragments of a language's resources: text between variables, tags, line breaks and punctuation. */
function fragments(language: string): Set<string> {
  const out = new Set<string>();
  for (const text of leafStrings(resources[language])) {
    for (const piece of text
      .replace(/\{\{[^}]*\}\}/g, "\n")
      .replace(/<[^>]+>/g, "\n")
      .split(/[\n.!?:•·()“”"]+/)) {
      const fragment = piece.trim();
      if (fragment.split(/\s+/).length >= 3 && fragment.length >= 15) out.add(fragment);
    }
  }
  return out;
}

function plainText(event: ChatEvent): string[] {
  if (event.kind === "message" || event.kind === "edit") {
    const message: Message = event.message;
    const buttons = message.reply_markup?.inline_keyboard.flat().map((button) => button.text) ?? [];
    return [message.text ?? message.caption ?? "", ...buttons];
  }
  if (event.kind === "callback_answer") return [event.answer.text ?? ""];
  return [];
}

const pressData = async (user: UserDriver, message: Message, prefix: string) => {
  const press = await user.press(message, { data: prefix });
  await press.answer();
};

function buttonData(message: Message, prefix: string): string {
  const data = message.reply_markup?.inline_keyboard
    .flat()
    .map((button) => ("callback_data" in button ? button.callback_data : ""))
    .find((value) => value?.startsWith(prefix));
  if (!data) throw new Error(`no button with data ${prefix}… on message ${message.message_id}`);
  return data;
}

describe("languages", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  LANGUAGES.forEach(({ code }, index) => {
    it(`runs the NGN payout journey in ${code} with no raw keys and no English fallback`, async () => {
      const user = stack.tg.user({ id: 9_100 + index, first_name: "Amaka", language_code: "de" });
      await user.send("/start");
      await user.nextMessage();
      await stack.app.store.users.update(user.id, { language: code });
      // Only what the bot says after the language was chosen counts.
      const mark = user.events().at(-1)?.seq ?? 0;

      await user.send("/send");
      const countries = await user.nextMessage();
      await pressData(user, countries, "po-c:NG");
      await user.nextEdit(countries);
      await user.send("gtb");
      const banks = await user.nextMessage();
      await pressData(user, banks, "po-b:000013");
      await user.nextEdit(banks);
      await user.send("0149200000");
      const enquiry = await user.nextMessage();
      expect(enquiry.text).toContain("OLADEJI OLAOLU");
      await pressData(user, enquiry, "po-a:name_ok");
      await user.nextEdit(enquiry);
      await user.send("10000");
      const card = await user.nextMessage();
      const confirm = buttonData(card, "po-ok:");
      await pressData(user, card, confirm);
      await user.nextPhoto();
      await user.nextMessage();
      const status = await user.nextMessage();

      const order = await stack.app.store.orders.get(confirm.slice("po-ok:".length));
      expect(order).toBeDefined();
      await stack.payLightning(order!.quoteId);
      await user.waitUntil(() => user.message(status.message_id)?.text !== status.text, {
        description: "the status card to move on",
      });
      await expect
        .poll(async () => (await stack.app.store.orders.get(order!.orderId))?.stage)
        .toBe("completed");
      await stack.tg.idle({ quietMs: 300, timeoutMs: 15_000 });

      const shown = user
        .events()
        .filter((event) => event.seq > mark)
        .flatMap(plainText)
        .filter(Boolean);
      const transcript = shown.join("\n");
      expect(transcript).not.toMatch(
        /\b(common|errors|status|payout|buy|history|recipients|price|admin|merchant):[a-z_]+/,
      );
      expect(shown).not.toContain("…");
      if (code !== "en") {
        const own = fragments(code);
        const leaked = [...fragments("en")].filter(
          (fragment) => !own.has(fragment) && transcript.includes(fragment),
        );
        expect(leaked).toEqual([]);
      }
      // The completed card, written by the events pipeline, is in the owner's language too.
      const finalCard = user.message(status.message_id)?.text ?? "";
      expect(finalCard).not.toBe(status.text);
    });
  });

  it("registers the command menu in every language Telegram can key it by", async () => {
    const user = stack.tg.user({ id: 9_200, first_name: "Wanjiru", language_code: "sw" });
    for (const { code } of TELEGRAM_MENU_LANGUAGES) {
      const menu = stack.tg.commandMenu(user, { languageCode: code });
      const expected = stack.app.translator.t(code)("common:commands.send");
      expect(menu.find((command) => command.command === "send")?.description).toBe(expected);
    }
    const english = stack.tg
      .commandMenu(user, { languageCode: "en" })
      .find((command) => command.command === "send");
    const swahili = stack.tg
      .commandMenu(user, { languageCode: "sw" })
      .find((command) => command.command === "send");
    expect(swahili?.description).not.toBe(english?.description);
  });

  it("follows the account's language setting for users who chose none and whose client language we lack", async () => {
    const user = stack.tg.user({ id: 9_300, first_name: "Jean", language_code: "de" });
    const welcomeIn = (code: string) =>
      stack.app.translator.t(code as "en")("common:welcome", { name: "Jean" });

    await fetch(`${stack.sandbox.origin}/_sandbox/account`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ language: "FR" }),
    });
    await stack.app.accountLanguage.refresh();
    await user.send("/start");
    expect((await user.nextMessage()).text).toBe(welcomeIn("fr").replace(/<[^>]+>/g, ""));

    await fetch(`${stack.sandbox.origin}/_sandbox/account`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ language: "sw" }),
    });
    await stack.app.accountLanguage.refresh();
    await user.send("/start");
    expect((await user.nextMessage()).text).toBe(welcomeIn("sw").replace(/<[^>]+>/g, ""));

    // The user's own choice and a supported client language both win over the account setting.
    const french = stack.tg.user({ id: 9_301, first_name: "Jean", language_code: "fr" });
    await french.send("/start");
    expect((await french.nextMessage()).text).toBe(welcomeIn("fr").replace(/<[^>]+>/g, ""));
    await stack.app.store.users.update(user.id, { language: "yo" });
    await user.send("/start");
    expect((await user.nextMessage()).text).toBe(welcomeIn("yo").replace(/<[^>]+>/g, ""));

    await fetch(`${stack.sandbox.origin}/_sandbox/account`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ language: "EN" }),
    });
    await stack.app.accountLanguage.refresh();
  });

  it("never shows a raw key: a key missing everywhere renders a neutral placeholder", () => {
    const t = stack.app.translator.t("sw");
    expect(t("common:this_key_does_not_exist")).toBe("…");
    expect(flattenKeys({ a: { b: "x" } })).toEqual(["a.b"]);
  });
});
