import type { Message } from "grammy/types";
import type { TelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import type { UserDriver } from "#src/standins/local/telegram-emulator/user-driver.js";

/** Updates a journey sends: /send, Nigeria, "gtb", the bank, the account, "yes", the amount, Confirm, Simulate. */
export const UPDATES_PER_JOURNEY = 9;

export interface JourneyResult {
  ok: boolean;
  error?: string;
  ms: number;
  /** Messages in the chat when it ended (the same for every journey when nothing is lost or repeated). */
  messages: number;
  /** Status cards the order got (1, unless a crash between sending the card and recording it sent it again). */
  statusCards: number;
}

const STATUS_CARD = /^💸 Payout · order /;

/** The whole NGN payout, pressed and typed as a person does, to "Completed" on the status card. */
export async function journey(tg: TelegramEmulator, id: number): Promise<JourneyResult> {
  const user = tg.user({ id, first_name: `User${id}`, language_code: "en" });
  const started = performance.now();
  try {
    await user.send("/send");
    const countries = await user.nextMessage({ match: /Where does it go/ });
    await pressAndWait(user, countries, /Nigeria/, /Which bank/);
    await user.send("gtb");
    const banks = await user.nextMessage({ match: /Banks matching/ });
    await pressAndWait(user, banks, "GTBANK PLC", /10-digit account number/);
    await user.send("0149200000");
    const confirm = await user.nextMessage({ match: /belongs to/ });
    await pressAndWait(user, confirm, /Yes, that's them/, /How much/);
    await user.send("5000");
    const card = await user.nextMessage({ match: /Your quote/ });
    await (await user.press(card, /Confirm/)).answer();
    await user.nextPhoto();
    const invoice = await user.nextMessage({ match: /^ln/ });
    await user.nextMessage({ match: /Waiting for payment/ });
    await (await user.press(invoice, /Simulate/)).answer();
    // The status card the bot keeps up to date: the last one, if a crash made it send the card twice.
    await user.nextEdit(undefined, { match: /Completed/ });
    // A repeated message would come after the last step: give it a moment to show.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const messages = user.messages();
    return {
      ok: true,
      ms: performance.now() - started,
      messages: messages.length,
      statusCards: messages.filter((message) => STATUS_CARD.test(message.text ?? "")).length,
    };
  } catch (error) {
    // The whole report: the emulator's timeout lists the bot's latest events in the chat, which is the diagnosis.
    const message = error instanceof Error ? error.message.split("\n").join("\n    ") : String(error);
    return {
      ok: false,
      error: `user ${id}: ${message}`,
      ms: performance.now() - started,
      messages: 0,
      statusCards: 0,
    };
  }
}

async function pressAndWait(user: UserDriver, message: Message, button: string | RegExp, match: RegExp) {
  await (await user.press(message, button)).answer();
  await user.nextEdit(message, { match });
}
