import type { Message } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalData } from "#src/bot/rules/approval-data.js";
import { ask, type OpsStack, requestNgnWithdrawal, startOpsStack } from "./admin-stack.ts";

/**
 * Four eyes are two ops admins, not two Telegram accounts: ops is a user listed in ADMIN_USER_IDS who is an
 * administrator of the ops group at that moment. A listed plain member, an administrator nobody listed or a
 * restricted member can neither start a withdrawal nor approve one; a role change reaches the bot as a chat_member
 * update and applies to the user's very next update; and an approval asks Telegram again for both admins, so a
 * demotion the bot missed still stops the money.
 */
const STALE = /belongs to an older screen/;

describe("ops roles in the ops group", () => {
  let ops: OpsStack;

  const ngnWithdrawals = () =>
    ops.stack.sandbox.state.transactions.filter((tx) => tx.origin === "withdraw").length;
  const stateOf = async (card: Message) => {
    const data = card.reply_markup?.inline_keyboard
      .flat()
      .find((button) => "callback_data" in button)?.callback_data;
    return (await ops.stack.app.store.approvals.get(approvalData.unpack(data!).id))?.state;
  };
  const auditActions = async () => (await ops.stack.app.store.audit.recent(50)).map((entry) => entry.action);

  beforeAll(async () => {
    ops = await startOpsStack();
    // Telegram tells a bot of other members' role changes only where the bot is an administrator.
    ops.group.setBotStatus("administrator", ops.ada);
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("a listed plain member, an unlisted administrator and a restricted member can neither request nor approve", async () => {
    const { group, ada, ben, mel, ike, rex } = ops;
    for (const outsider of [mel, ike, rex]) {
      await group.send(outsider, "/withdraw_ngn");
      await group.send(outsider, "/wallets");
    }
    await ops.stack.tg.idle();
    expect(group.unconsumed()).toEqual([]);

    const card = await requestNgnWithdrawal(ops, ada, "1,000");
    const before = ngnWithdrawals();
    for (const outsider of [mel, ike, rex]) {
      const press = await group.press(outsider, card, "✅ Approve");
      expect((await press.answer()).text, outsider.user.first_name).toMatch(STALE);
    }
    const own = await group.press(ada, card, "✅ Approve");
    expect((await own.answer()).text).toMatch(/another admin must approve/);
    expect(await stateOf(card)).toBe("pending");
    expect(ngnWithdrawals()).toBe(before);

    // An ops admin can: the card itself was never the problem.
    await (await group.press(ben, card, "✅ Approve")).answer();
    await group.nextEdit(card, { match: /Approved by @ben_ops and sent/ });
    expect(ngnWithdrawals()).toBe(before + 1);
  });

  it("a demotion reaches the bot as chat_member and applies at once: the demoted admin cannot approve", async () => {
    const { group, ada, ben } = ops;
    const card = await requestNgnWithdrawal(ops, ada, "2,000");
    // Ben was just confirmed as ops (and that answer is cached)…
    expect((await ask(group, ben, "/wallets", /Wallets/)).text).toMatch(/NGN: ₦/);
    const before = ngnWithdrawals();
    // …then the creator demotes him to a plain member.
    group.consumeAll();
    group.setMemberStatus(ben, "member", ada);
    await group.send(ben, "/wallets");
    const press = await group.press(ben, card, "✅ Approve");
    expect((await press.answer()).text).toMatch(STALE);
    await ops.stack.tg.idle();
    const answered = group
      .unconsumed()
      .filter(
        (event) =>
          (event.kind === "message" && /Wallets/.test(event.message.text ?? "")) ||
          (event.kind === "edit" && event.message.message_id === card.message_id),
      );
    expect(answered).toEqual([]);
    expect(await stateOf(card)).toBe("pending");
    expect(ngnWithdrawals()).toBe(before);
    expect(await auditActions()).toContain("ops.role_changed");

    // Promoted again, he is ops on his very next update, and the request goes through once.
    group.setMemberStatus(ben, "administrator", ada);
    await (await group.press(ben, card, "✅ Approve")).answer();
    await group.nextEdit(card, { match: /Approved by @ben_ops and sent/ });
    expect(ngnWithdrawals()).toBe(before + 1);
  });

  it("the approver is asked of Telegram at the press, even when the bot missed the demotion", async () => {
    const { group, ada, ben } = ops;
    const card = await requestNgnWithdrawal(ops, ada, "3,000");
    expect((await ask(group, ben, "/wallets", /Wallets/)).text).toMatch(/NGN: ₦/);
    const before = ngnWithdrawals();
    // Demoted with no update to the bot (as when it is not an administrator of the group).
    group.addMember(ben, "member");
    const press = await group.press(ben, card, "✅ Approve");
    expect((await press.answer()).text).toMatch(STALE);
    expect(await stateOf(card)).toBe("pending");
    expect(ngnWithdrawals()).toBe(before);
    expect(await auditActions()).toContain("treasury.approve_not_ops");
    group.setMemberStatus(ben, "administrator", ada);
    await (await group.press(ben, card, "✖️ Reject")).answer();
    await group.nextEdit(card, { match: /Rejected by @ben_ops/ });
  });

  it("an admin demoted halfway through a withdrawal can no longer drive the flow", async () => {
    const { group, ada, cy } = ops;
    const amountPrompt = await ask(group, cy, "/withdraw_ngn", /NGN withdrawal/);
    group.consumeAll();
    group.setMemberStatus(cy, "member", ada);
    await group.send(cy, "1,000", { replyTo: amountPrompt });
    await ops.stack.tg.idle();
    // Nothing but the alerts of earlier withdrawals' final status: no next step of the flow.
    const replies = group
      .unconsumed()
      .filter((event) => event.kind === "message" && !/Ops alerts/.test(event.message.text ?? ""));
    expect(replies).toEqual([]);
    // The group's flow is still there for ops to drop.
    await group.send(ada, "/cancel");
    expect((await group.nextMessage({ match: /Cancelled/ })).text).toMatch(
      /Cancelled: the withdrawal you were preparing/,
    );
    group.setMemberStatus(cy, "administrator", ada);
  });

  it("a request whose requester was demoted since cannot be approved by anyone; it can be rejected", async () => {
    const { group, ada, ben, cy } = ops;
    const card = await requestNgnWithdrawal(ops, cy, "4,000");
    const before = ngnWithdrawals();
    group.setMemberStatus(cy, "member", ada);
    const press = await group.press(ben, card, "✅ Approve");
    const answer = await press.answer();
    expect(answer.text).toMatch(/no longer an ops admin, so it cannot be approved/);
    expect(answer.showAlert).toBe(true);
    expect(await stateOf(card)).toBe("pending");
    expect(ngnWithdrawals()).toBe(before);
    expect(await auditActions()).toContain("treasury.approve_requester_not_ops");

    expect((await (await group.press(ben, card, "✖️ Reject")).answer()).text).toMatch(/Rejected/);
    await group.nextEdit(card, { match: /Rejected by @ben_ops/ });
    group.setMemberStatus(cy, "administrator", ada);
  });
});
