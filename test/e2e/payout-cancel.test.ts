import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";
import type { UserDriver } from "../support/telegram-driver.ts";
import {
  buttons,
  current,
  nigerianRecipient,
  pressAndEdit,
  quoteFor,
  startSend,
  typeAndRead,
} from "./payout-support.ts";

/** Each step of every corridor, reached from /send; returns the screen the user is looking at. */
type Step = (user: UserDriver) => Promise<Message>;

const country = (name: RegExp, expected: RegExp) => async (user: UserDriver) =>
  pressAndEdit(user, await startSend(user), name, expected);

const ngBankPrompt = country(/Nigeria/, /Which bank/);
const ngResults: Step = async (user) => {
  await ngBankPrompt(user);
  return typeAndRead(user, "access", /Banks matching/);
};
const ngAccount: Step = async (user) =>
  pressAndEdit(user, await ngResults(user), "ACCESS BANK", /account number/);
const ngConfirmName: Step = async (user) => {
  await ngAccount(user);
  return typeAndRead(user, "0149200000", /belongs to/);
};
const ngEnquiryFailed: Step = async (user) => {
  await ngAccount(user);
  return typeAndRead(user, "1111111111", /could not confirm/);
};
const keMethods = country(/Kenya/, /How should the money arrive/);
const kePhone: Step = async (user) => pressAndEdit(user, await keMethods(user), /phone/, /phone number/);
const keNetwork: Step = async (user) => {
  await kePhone(user);
  return typeAndRead(user, "0712345678", /Which wallet/);
};
const keName: Step = async (user) => pressAndEdit(user, await keNetwork(user), /M-Pesa/, /name/);
const kePaybill: Step = async (user) => pressAndEdit(user, await keMethods(user), /Paybill/, /paybill/);
const keBillAccount: Step = async (user) => {
  await kePaybill(user);
  return typeAndRead(user, "888880", /account number/);
};
const keTill: Step = async (user) => pressAndEdit(user, await keMethods(user), /Till/, /till number/);
const zaBanks = country(/South Africa/, /Which bank/);
const zaAccount: Step = async (user) => pressAndEdit(user, await zaBanks(user), "ABSA", /account number/);
const zaHolder: Step = async (user) => {
  await zaAccount(user);
  return typeAndRead(user, "123456789", /holder/);
};
const ghPhone = country(/Ghana/, /MTN mobile money number/);
const ghName: Step = async (user) => {
  await ghPhone(user);
  return typeAndRead(user, "0241234567", /name on the MoMo account/);
};

const STEPS: Array<[string, Step]> = [
  ["country", startSend],
  ["NG bank prompt", ngBankPrompt],
  ["NG bank results", ngResults],
  ["NG account number", ngAccount],
  ["NG verified name", ngConfirmName],
  ["NG failed enquiry", ngEnquiryFailed],
  ["NG amount", (user) => nigerianRecipient(user)],
  ["KE method", keMethods],
  ["KE phone", kePhone],
  ["KE network", keNetwork],
  ["KE name", keName],
  ["KE paybill", kePaybill],
  ["KE paybill account", keBillAccount],
  ["KE till", keTill],
  ["ZA bank", zaBanks],
  ["ZA account", zaAccount],
  ["ZA holder", zaHolder],
  ["GH phone", ghPhone],
  ["GH name", ghName],
];

describe("leaving the payout flow at every step", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function expectLeft(user: UserDriver): Promise<void> {
    const reply = await user.nextMessage({ match: /Cancelled/ });
    expect(reply.text).toContain(
      "Cancelled: your payout in progress. Nothing was sent and nothing was charged.",
    );
    expect(buttons(reply)).toContain("💸 Send money");
    // The flow is gone: free text now gets the main menu, not a step's error.
    await user.send("0149200000");
    expect((await user.nextMessage()).text).toMatch(/didn't understand/);
  }

  STEPS.forEach(([name, reach], index) => {
    it(`/cancel at ${name}`, async () => {
      const user = stack.tg.user({ id: 7500 + index, first_name: "Cancel" });
      await reach(user);
      await user.send("/cancel");
      await expectLeft(user);
    });

    it(`❌ at ${name}`, async () => {
      const user = stack.tg.user({ id: 7600 + index, first_name: "Cross" });
      const screen = await reach(user);
      await (await user.press(screen, "❌ Cancel")).answer();
      await expectLeft(user);
      expect(buttons(current(user, screen))).toEqual([]);
    });
  });

  it("/cancel on the quote card", async () => {
    const user = stack.tg.user({ id: 7700, first_name: "Quote" });
    await nigerianRecipient(user);
    await quoteFor(user, "5000");
    await user.send("/cancel");
    await expectLeft(user);
  });

  it("another menu command mid-flow leaves the flow and runs the command", async () => {
    const user = stack.tg.user({ id: 7701, first_name: "Menu" });
    await ngAccount(user);
    await user.send("/send");
    expect((await user.nextMessage({ match: /Where does it go/ })).text).toMatch(/Send money/);
  });
});
