import { writeFileSync } from "node:fs";
import fc from "fast-check";
import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LOCALES_DIR, flattenKeys, loadResources } from "#src/i18n/index.js";
import { CALLBACK_PREFIXES } from "../support/callback-prefixes.ts";
import { captureLog } from "../support/log-capture.ts";
import type { GroupDriver, UserDriver } from "../support/telegram-driver.ts";
import { type OpsStack, startOpsStack } from "./admin-stack.ts";

/**
 * Random input through every conversation state. Each round drives one user with valid input to a state (a random
 * number of steps into a scenario: every corridor and step of the payout, buy, history, recipients, price,
 * language, /newlink, the ops flows in the admin group), then fires a burst of random input at it: text of every
 * shape (4,096-character lines, RTL, emoji, HTML-like, zero-width), commands, real buttons of the latest screen,
 * and forged callback data. The seed is fixed (FUZZ_SEED overrides it) and printed on failure.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
const RANDOM_INPUTS = 2_000;
const BURST = 8;
const RUNNERS = 4;

/** Every key path of the English resources ("quote.title"), as a whole token: a key shown untranslated. */
const english = loadResources(DEFAULT_LOCALES_DIR).en ?? {};
const NAMESPACES = Object.keys(english);
const KEY_PATHS = new Set(
  Object.values(english).flatMap((resource) => flattenKeys(resource).filter((path) => path.includes("."))),
);
const RAW_KEY = new RegExp(`\\b(?:${NAMESPACES.join("|")}):[a-z_]+(?:\\.[a-z0-9_]+)+`);
const hasKeyPath = (value: string) => value.split(/[\s<>"“”]+/).some((token) => KEY_PATHS.has(token));

/** Valid-looking answers for the steps of every flow, so random walks get deep. */
const VALID_TEXT = [
  "gtb",
  "access",
  "0149200000",
  "5000",
  "₦5,000",
  "25,000",
  "0790 000 000",
  "+254 733 123 456",
  "4141031",
  "test_account",
  "Jane Wanjiku",
  "fnb",
  "1352 900 000",
  "Ricki Tester",
  "024 123 4567",
  "Kofi Mensah",
  "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
  "40000",
  "21000 sats",
  "KSh 500",
  "R 50",
  "$5",
  "https://shop.example/thanks",
  "Order #1042 <Ankara fabric>",
];

/** Cut to at most `max` UTF-16 units without leaving half a surrogate pair. */
const cutUnits = (text: string, max: number) => {
  let out = text.slice(0, max);
  if (/[\ud800-\udbff]$/.test(out)) out = out.slice(0, -1);
  return out;
};
const cutBytes = (text: string, max: number) => {
  let out = text;
  while (Buffer.byteLength(out) > max) out = cutUnits(out, out.length - 1);
  return out;
};

const longLine = fc
  .constantFrom("x", "😀", "مرحبا ", "&amp;", "<b>", "e\u0301", "\u200b", "9", "👨‍👩‍👧")
  .map((unit) => cutUnits(unit.repeat(Math.ceil(4096 / unit.length)), 4096));
const odd = fc.constantFrom(
  "<b>bold</b>",
  "</i>",
  "<a href='x'>",
  "&",
  "<",
  "a & b < c > d",
  "&lt;&gt;&amp;",
  "\u200b\u200c\u200d\ufeff",
  "\u202eevil\u202c",
  "שלום עולם",
  "مرحبا بالعالم",
  "🇳🇬🇰🇪🇿🇦🇬🇭",
  "{{name}}",
  "$t(common:stale_button)",
  "payout:quote",
  "%s %d",
  "null",
  "-0",
  "1e309",
  "NaN",
  "0x10",
  "9".repeat(40),
);
const text = fc
  .oneof(
    { weight: 4, arbitrary: fc.constantFrom(...VALID_TEXT) },
    { weight: 3, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }) },
    { weight: 2, arbitrary: odd },
    { weight: 1, arbitrary: longLine },
    { weight: 1, arbitrary: fc.stringMatching(/^[0-9 +,.₦$]{1,16}$/) },
  )
  .filter((value) => value.trim().length > 0);
const command = fc.oneof(
  fc.constantFrom(
    "/start",
    "/send",
    "/buy",
    "/history",
    "/recipients",
    "/price",
    "/alert",
    "/alert ke",
    "/alerts",
    "/language",
    "/cancel",
    "/help",
    "/status",
    "/newlink",
    "/links",
    "/link",
    "/foo",
    "/stats",
    "/wallets",
    "/health",
    "/profile",
    "/merchants",
    "/withdraw_ngn",
    "/withdraw_btc",
    "/broadcast",
  ),
  fc
    .tuple(
      fc.constantFrom(
        "/start",
        "/price",
        "/status",
        "/link",
        "/start send_",
        "/send",
        "/history",
        // Ops commands (in the admin group; elsewhere they are unknown commands).
        "/order",
        "/user",
        "/tx",
        "/limits",
        "/merchant approve",
        "/merchant revoke",
        "/simulate",
        "/block",
      ),
      fc.oneof(text, fc.constantFrom("KE", "zz", "123-456", "send_abc")),
    )
    .map(([head, tail]) => cutUnits(`${head}${head.endsWith("_") ? "" : " "}${tail}`, 4096)),
);
const forged = fc
  .oneof(
    fc
      .tuple(fc.constantFrom(...CALLBACK_PREFIXES), fc.string({ unit: "grapheme", maxLength: 50 }))
      .map(([prefix, tail]) => `${prefix}:${tail}`),
    fc
      .tuple(
        fc.constantFrom(...CALLBACK_PREFIXES),
        fc.constantFrom("page", "view", "again", "send", "del", "delok", "keep", "speed", "confirm"),
        fc.constantFrom("-1", "1e309", "NaN", "Infinity", "0x1", "00", "99999999999", "1.5", "", "a:b"),
      )
      .map(([prefix, action, value]) => `${prefix}:${action}:${value}`),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 64 }),
  )
  .map((data) => cutBytes(data, 64))
  .filter((data) => data.length > 0);

/** Messages without text: what people also send mid-flow. */
const MEDIA: Array<Partial<Message>> = [
  {
    sticker: {
      file_id: "s",
      file_unique_id: "s",
      type: "regular",
      width: 512,
      height: 512,
      is_animated: false,
      is_video: false,
    },
  },
  {
    photo: [{ file_id: "p", file_unique_id: "p", width: 90, height: 90 }],
    caption: "<b>my bank</b> & 0149200000",
  },
  { location: { latitude: 6.45, longitude: 3.39 } },
  { contact: { phone_number: "+254712345678", first_name: "Jane" } },
  { document: { file_id: "d", file_unique_id: "d", file_name: "x.pdf" } },
];

type Input =
  | { kind: "media"; index: number }
  | { kind: "text"; text: string }
  | { kind: "command"; text: string }
  | { kind: "press"; index: number }
  | { kind: "forge"; data: string };
const input: fc.Arbitrary<Input> = fc.oneof(
  { weight: 7, arbitrary: text.map((value) => ({ kind: "text" as const, text: value })) },
  { weight: 2, arbitrary: command.map((value) => ({ kind: "command" as const, text: value })) },
  { weight: 7, arbitrary: fc.nat(30).map((index) => ({ kind: "press" as const, index })) },
  { weight: 4, arbitrary: forged.map((data) => ({ kind: "forge" as const, data })) },
  { weight: 1, arbitrary: fc.nat(MEDIA.length - 1).map((index) => ({ kind: "media" as const, index })) },
);

/** A valid step: press a button whose label matches, else type the text. */
type Step = { press: RegExp } | { type: string };
const SCENARIOS: Record<string, Step[]> = {
  payoutNG: [
    { type: "/send" },
    { press: /Nigeria/ },
    { type: "gtb" },
    { press: /GTBANK/ },
    { type: "0149200000" },
    { press: /Yes/ },
    { type: "5000" },
    { press: /Confirm/ },
  ],
  payoutKEphone: [
    { type: "/send" },
    { press: /Kenya/ },
    { press: /phone/ },
    { type: "0790 000 000" },
    { press: /M-Pesa/ },
    { type: "Jane Wanjiku" },
    { type: "KSh 500" },
    { press: /Confirm/ },
  ],
  payoutKEpaybill: [
    { type: "/send" },
    { press: /Kenya/ },
    { press: /Paybill/ },
    { type: "4141031" },
    { type: "test_account" },
    { type: "Acme Ltd" },
    { type: "KSh 500" },
  ],
  payoutKEtill: [
    { type: "/send" },
    { press: /Kenya/ },
    { press: /Till/ },
    { type: "123456" },
    { type: "Shop" },
  ],
  payoutZA: [
    { type: "/send" },
    { press: /South Africa/ },
    { type: "fnb" },
    { type: "1352 900 000" },
    { type: "Ricki Tester" },
    { type: "R 50" },
  ],
  payoutGH: [
    { type: "/send" },
    { press: /Ghana/ },
    { type: "024 123 4567" },
    { type: "Kofi Mensah" },
    { type: "5000" },
  ],
  buy: [
    { type: "/buy" },
    { type: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" },
    { press: /Fast/ },
    { type: "40000" },
    { press: /Confirm/ },
  ],
  history: [{ type: "/history" }, { press: /▶|Next/ }, { press: /1/ }],
  recipients: [{ type: "/recipients" }, { press: /Delete|🗑/ }],
  price: [{ type: "/price" }, { press: /Kenya|🇰🇪/ }],
  language: [{ type: "/language" }, { press: /Français/ }, { type: "/language" }, { press: /English/ }],
  newlink: [
    { type: "/newlink" },
    { type: "Order #1042 <Ankara fabric>" },
    { press: /Skip/ },
    { type: "25,000" },
    { type: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" },
    { press: /Fast/ },
    { press: /Skip/ },
  ],
};
const GROUP_SCENARIOS: Step[][] = [
  [{ type: "/withdraw_ngn" }, { type: "gtb" }, { press: /GTBANK/ }, { type: "0149200000" }],
  [{ type: "/withdraw_btc" }],
  [{ type: "/broadcast" }, { type: "Hello <b>all</b> & welcome" }],
  [{ type: "/order 123-456" }],
  [{ type: "/user 1" }],
  [{ type: "/limits" }],
  [{ type: "/tx x" }],
];

/** The latest message of the bot in this chat that has inline buttons. */
function latestWithButtons(messages: Message[]): Message | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.from?.is_bot && message.reply_markup?.inline_keyboard.length) return message;
  }
  return undefined;
}
const latestFromBot = (messages: Message[]) => messages.filter((message) => message.from?.is_bot).at(-1);

describe("fuzz: random input through every conversation state", () => {
  let ops: OpsStack;
  const log = captureLog();
  const queries: Array<{ queryId: string; data: string }> = [];
  let sent = 0;

  beforeAll(async () => {
    ops = await startOpsStack({
      logger: log.logger,
      // Answers may lag on a loaded machine; a double answer is refused however late it comes.
      emulator: { callbackAnswerTimeoutMs: 120_000, callLogLimit: 200_000, defaultTimeoutMs: 30_000 },
    });
  });
  afterAll(async () => {
    await ops?.stop();
  });

  /** Wait until this chat's updates are taken and the bot has been quiet in it for a moment. */
  async function settle(chat: UserDriver | GroupDriver, quietMs = 40): Promise<void> {
    const deadline = Date.now() + 30_000;
    let seen = chat.events().length;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 15));
      const pending = ops.stack.tg
        .pendingUpdates()
        .some(
          (update) => (update.message?.chat.id ?? update.callback_query?.message?.chat.id) === chat.chatId,
        );
      const now = chat.events().length;
      if (pending || now !== seen) {
        seen = now;
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= quietMs) return;
    }
  }

  function makeActor(chat: UserDriver | GroupDriver, from?: UserDriver) {
    const group = from !== undefined;
    const messages = () => chat.messages();
    return {
      async type(value: string) {
        sent += 1;
        if (group) {
          const prompt = latestFromBot(messages());
          await (chat as GroupDriver).send(from!, value, prompt ? { replyTo: prompt } : {});
        } else await (chat as UserDriver).send(value);
      },
      async pressMatching(label: RegExp): Promise<boolean> {
        const target = latestWithButtons(messages());
        const button = target?.reply_markup?.inline_keyboard
          .flat()
          .find((candidate) => "callback_data" in candidate && label.test(candidate.text));
        if (!target || !button || !("callback_data" in button)) return false;
        await this.forge(target, button.callback_data!);
        return true;
      },
      async pressIndex(index: number) {
        const target = latestWithButtons(messages());
        const buttons =
          target?.reply_markup?.inline_keyboard
            .flat()
            .filter((candidate) => "callback_data" in candidate && candidate.callback_data) ?? [];
        if (!target || buttons.length === 0) return this.type("/start");
        const button = buttons[index % buttons.length]!;
        return this.forge(target, (button as { callback_data: string }).callback_data);
      },
      async forge(target: Message | undefined, data: string) {
        const on = target ?? latestFromBot(messages());
        if (!on) return this.type("/start");
        sent += 1;
        const press = group
          ? await (chat as GroupDriver).pressData(from!, on, data)
          : await (chat as UserDriver).pressData(on, data);
        queries.push({ queryId: press.queryId, data });
      },
      async random(step: Input) {
        if (step.kind === "text" || step.kind === "command") return this.type(step.text);
        if (step.kind === "media") {
          if (group) return this.type("/start");
          sent += 1;
          await (chat as UserDriver).sendRaw(MEDIA[step.index]!);
          return;
        }
        if (step.kind === "press") return this.pressIndex(step.index);
        return this.forge(latestWithButtons(messages()), step.data);
      },
    };
  }

  async function drive(actor: ReturnType<typeof makeActor>, chat: UserDriver | GroupDriver, steps: Step[]) {
    for (const step of steps) {
      if ("press" in step) {
        if (!(await actor.pressMatching(step.press))) continue;
      } else await actor.type(step.type);
      await settle(chat);
    }
  }

  it(`${RANDOM_INPUTS}+ random inputs: no error logged, no Telegram rejection, no raw key, one answer per press`, async () => {
    const { tg } = ops.stack;
    // Ops: make the merchant runner a merchant; seed each runner's history with a real payout quote.
    const users = Array.from({ length: RUNNERS }, (_, index) =>
      tg.user({
        id: 90_001 + index,
        first_name: `Fuzz ${index}`,
        username: `fuzz_user_${index}`,
        language_code: index === 1 ? "fr" : "en",
      }),
    );
    for (const user of users) {
      await user.send("/start");
      await settle(user);
    }
    for (let index = 0; index < RUNNERS; index += 1) {
      await ops.group.send(ops.ada, `/merchant approve @fuzz_user_${index}`);
      await settle(ops.group);
    }

    const rounds = Math.ceil(RANDOM_INPUTS / BURST);
    const plan = fc.sample(
      fc.record({
        scenario: fc.nat(Object.keys(SCENARIOS).length + GROUP_SCENARIOS.length - 1),
        depth: fc.nat(8),
        burst: fc.array(input, { minLength: BURST, maxLength: BURST }),
      }),
      { seed: SEED, numRuns: rounds },
    );
    const started = Date.now();
    try {
      await Promise.all(
        users.map(async (user, runner) => {
          const actor = makeActor(user);
          const groupActor = makeActor(ops.group, runner === 0 ? ops.ada : ops.ben);
          for (let round = runner; round < plan.length; round += RUNNERS) {
            const { scenario, depth, burst } = plan[round]!;
            const names = Object.keys(SCENARIOS);
            const inGroup = scenario >= names.length && runner < 2;
            const [chat, who] = inGroup ? [ops.group, groupActor] : [user, actor];
            const steps = inGroup
              ? GROUP_SCENARIOS[scenario - names.length]!
              : SCENARIOS[names[scenario % names.length]!]!;
            // Random presses change languages; the scripted steps read English labels.
            for (const id of [user.id, ops.ada.id, ops.ben.id])
              await ops.stack.app.store.users.update(id, { language: "en" });
            await who.type("/cancel");
            await settle(chat);
            await drive(who, chat, steps.slice(0, Math.max(1, Math.min(depth, steps.length))));
            for (const step of burst) await who.random(step);
            await settle(chat);
          }
        }),
      );
      await tg.idle({ quietMs: 1_000, timeoutMs: 60_000 });
    } catch (error) {
      throw new Error(`fuzz run failed (seed ${SEED}): ${String(error)}`);
    }
    const seconds = (Date.now() - started) / 1000;
    if (process.env.FUZZ_TRANSCRIPT) writeFileSync(process.env.FUZZ_TRANSCRIPT, tg.transcript());

    const calls = tg.calls();
    // Allowed refusals: an edit to what is already shown, and a broadcast (a fuzzed Send press in the ops
    // group) reaching the ops members who never opened a private chat with the bot.
    const ALLOWED = /message is not modified|bot can't initiate conversation/i;
    const rejections = calls.filter(
      (call) => !call.ok && !call.fault && !ALLOWED.test(call.description ?? ""),
    );
    const texts = calls.flatMap((call) =>
      ["text", "caption"]
        .map((field) => call.params[field])
        .filter((value): value is string => typeof value === "string"),
    );
    const rawKeys = texts.filter((value) => RAW_KEY.test(value) || hasKeyPath(value) || value.trim() === "…");
    const answers = new Map<string, number>();
    for (const call of calls.filter((c) => c.method === "answerCallbackQuery" && c.ok)) {
      const id = String(call.params.callback_query_id);
      answers.set(id, (answers.get(id) ?? 0) + 1);
    }
    const badlyAnswered = queries.filter(({ queryId }) => answers.get(queryId) !== 1);
    // Depth reached: screens deep in each flow were shown (a fuzz that never gets past the menu proves little).
    const MARKERS: Record<string, RegExp> = {
      payoutQuote: /Your quote/,
      invoice: /^ln/,
      kenyaName: /name/,
      zaAccount: /account number at/,
      ghName: /name on the MoMo account/,
      buyQuote: /Your bitcoin quote/,
      linkSummary: /Check your payment link/,
      history: /Your orders|orders/i,
      withdraw: /withdraw/i,
      broadcastPreview: /exactly what users will get/,
    };
    const reached = Object.fromEntries(
      Object.entries(MARKERS).map(([name, marker]) => [
        name,
        texts.filter((value) => marker.test(value.replace(/<[^>]+>/g, ""))).length,
      ]),
    );
    const report = {
      reached,
      seed: SEED,
      inputs: sent,
      presses: queries.length,
      seconds,
      errors: log.errors().slice(0, 5),
      rejections: rejections
        .slice(0, 5)
        .map((call) => ({ method: call.method, description: call.description })),
      rawKeys: rawKeys.slice(0, 5),
      badlyAnswered: badlyAnswered.slice(0, 5),
      guardFired: log.warnings("outgoing Telegram text over the limit: cut"),
    };
    console.info(`fuzz: ${JSON.stringify({ ...report, errors: report.errors.length })}`);
    if (process.env.FUZZ_TRANSCRIPT)
      writeFileSync(`${process.env.FUZZ_TRANSCRIPT}.log`, JSON.stringify(log.entries, null, 1));
    expect(sent).toBeGreaterThanOrEqual(RANDOM_INPUTS);
    expect(report.errors, `seed ${SEED}`).toEqual([]);
    expect(report.rejections, `seed ${SEED}`).toEqual([]);
    expect(report.rawKeys, `seed ${SEED}`).toEqual([]);
    expect(report.badlyAnswered, `seed ${SEED}`).toEqual([]);
    expect(report.guardFired, `seed ${SEED}`).toBe(0);
    for (const state of [
      "payoutQuote",
      "kenyaName",
      "zaAccount",
      "ghName",
      "buyQuote",
      "history",
      "withdraw",
    ])
      expect(reached[state], `${state} never reached (seed ${SEED})`).toBeGreaterThan(0);
  }, 240_000);
});
