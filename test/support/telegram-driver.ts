/**
 * The Telegram emulator and its driver, for end-to-end tests:
 *   const tg = await startTelegramEmulator();
 *   const bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
 *   const alice = tg.user({ id: 1001, first_name: "Alice" });
 *   await alice.send("/start"); const menu = await alice.nextMessage(); await alice.press(menu, /Nigeria/);
 * See src/standins/local/telegram-emulator/index.ts for the whole API.
 */
export * from "#src/standins/local/telegram-emulator/index.js";
