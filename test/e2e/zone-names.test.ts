import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import { buttons } from "./payout-support.ts";

/**
 * Outside English, Intl names the corridors' zones by offset ("WAT+1" in Yorùbá, "GMT +3" in Kiswahili). Users read
 * WAT, EAT, SAST and GMT, as people in Nigeria, Kenya, South Africa and Ghana say them: on a Yorùbá user's quote
 * deadline, invoice and status card, and on the /language clock picker in any language. Driven by button data,
 * never by English text.
 */
const OFFSET_NAMES = /WAT\+|GMT ?\+|UTC ?\+|ANW/;

/** "21:24" in a zone, from Intl's own 24-hour clock (no zone name): what the deadline must say before its zone. */
function wallClock(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone,
  }).format(ms);
}

function dataOf(message: Message, prefix: string): string {
  const data = message.reply_markup?.inline_keyboard
    .flat()
    .map((button) => ("callback_data" in button ? button.callback_data : ""))
    .find((value) => value?.startsWith(prefix));
  if (!data) throw new Error(`no button with data ${prefix}… on message ${message.message_id}`);
  return data;
}

async function pressData(user: UserDriver, message: Message, prefix: string): Promise<void> {
  const press = await user.press(message, { data: dataOf(message, prefix) });
  await press.answer();
}

/** The clock buttons of the /language picker, as "flag HH:MM ZONE" (the ✅ of the current one dropped). */
async function clockChoices(user: UserDriver): Promise<{ picker: Message; labels: string[] }> {
  await user.send("/language");
  const picker = await user.nextMessage();
  const labels = buttons(picker)
    .filter((label) => /\d{2}:\d{2}/.test(label))
    .map((label) => label.replace(/^✅ /, ""));
  return { picker, labels };
}

const minutesOf = (label: string) => {
  const [, hours, minutes] = /(\d{2}):(\d{2})/.exec(label) ?? [];
  return Number(hours) * 60 + Number(minutes);
};

describe("zone names as each country says them", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("a Yorùbá user's quote deadline, invoice and status card say WAT", async () => {
    const user = stack.tg.user({ id: 9_610, first_name: "Adé", language_code: "yo" });
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
    await pressData(user, enquiry, "po-a:name_ok");
    await user.nextEdit(enquiry);
    await user.send("10000");
    const card = await user.nextMessage();

    const confirm = dataOf(card, "po-ok:");
    const order = await stack.app.store.orders.get(confirm.slice("po-ok:".length));
    const until = `${wallClock(Date.parse(order?.expiresAt ?? ""), "Africa/Lagos")} WAT`;
    expect(card.text).toContain(`(títí di ${until})`);
    expect(card.text).not.toMatch(OFFSET_NAMES);

    await pressData(user, card, confirm);
    const photo = await user.nextPhoto();
    await user.nextMessage();
    const status = await user.nextMessage();
    expect(photo.caption).toContain(`(títí di ${until})`);
    expect(status.text).toContain(`Sanwó ṣáájú ${until}`);
    expect(`${photo.caption}\n${status.text}`).not.toMatch(OFFSET_NAMES);
  });

  for (const [id, language] of [
    [9_611, "yo"],
    [9_612, "sw"],
    [9_613, "ak"],
  ] as const) {
    it(`the clock picker in ${language} offers WAT, EAT, SAST and GMT, each at its own time`, async () => {
      const user = stack.tg.user({ id, first_name: "Ama", language_code: language });
      const { picker, labels } = await clockChoices(user);
      expect(labels).toEqual([
        expect.stringMatching(/^🇳🇬 \d{2}:\d{2} WAT$/),
        expect.stringMatching(/^🇰🇪 \d{2}:\d{2} EAT$/),
        expect.stringMatching(/^🇿🇦 \d{2}:\d{2} SAST$/),
        expect.stringMatching(/^🇬🇭 \d{2}:\d{2} GMT$/),
      ]);
      // One instant on four clocks: Nairobi is two hours ahead of Lagos, Johannesburg one, Accra one behind.
      const lagos = minutesOf(labels[0] ?? "");
      const ahead = labels.map((label) => (minutesOf(label) - lagos + 24 * 60) % (24 * 60));
      expect(ahead).toEqual([0, 120, 60, 23 * 60]);

      const press = await user.press(picker, /🇰🇪/);
      const saved = (await press.answer()).text ?? "";
      expect(saved).toMatch(/\d{2}:\d{2} EAT$/);
      expect(saved).not.toMatch(OFFSET_NAMES);
    });
  }
});
