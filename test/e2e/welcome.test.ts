import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";

describe("welcome, menu, language and cancel", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("greets with the main menu and registers translated command menus", async () => {
    const alice = stack.tg.user({ id: 5001, first_name: "Alice <b>", language_code: "en" });
    await alice.send("/start");
    const welcome = await alice.nextMessage();
    expect(welcome.text).toContain("Alice <b>");
    const buttons = welcome.reply_markup?.inline_keyboard.flat().map((button) => button.text) ?? [];
    expect(buttons).toContain("💸 Send money");
    expect(buttons).toContain("🌐 Language");
    const menu = stack.tg.commandMenu(alice, { languageCode: "en" });
    expect(menu.map((command) => command.command)).toEqual(
      expect.arrayContaining(["send", "buy", "cancel", "language"]),
    );
  });

  it("answers unknown text with the menu instead of silence, and stale buttons with a toast", async () => {
    const bob = stack.tg.user({ id: 5002, first_name: "Bob" });
    await bob.send("hello?");
    const reply = await bob.nextMessage();
    expect(reply.text).toMatch(/didn't understand/);
    expect(reply.reply_markup?.inline_keyboard.length).toBeGreaterThan(0);
    await bob.send("/cancel");
    expect((await bob.nextMessage()).text).toMatch(/nothing to cancel/i);
  });

  it("remembers the chosen language", async () => {
    const carol = stack.tg.user({ id: 5003, first_name: "Carol", language_code: "en" });
    await carol.send("/language");
    const picker = await carol.nextMessage();
    const names = picker.reply_markup?.inline_keyboard.flat().map((button) => button.text) ?? [];
    expect(names).toEqual(
      expect.arrayContaining(["Kiswahili", "Yorùbá", "isiZulu", "Français", "✅ English"]),
    );
    const press = await carol.press(picker, "Kiswahili");
    await press.answer();
    await carol.nextEdit(picker);
    expect((await stack.app.store.users.get(5003))?.language).toBe("sw");
  });
});
