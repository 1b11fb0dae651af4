import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask, type OpsStack, startOpsStack } from "./admin-stack.ts";
import { buttons, nigerianRecipient, pressAndEdit, startSend, typeAndRead } from "./payout-support.ts";

/**
 * Ops pause one corridor (a bank network is down in Nigeria) or buying, for a while: everything else keeps working,
 * users see which countries are paused and when to try again, and the pause lapses or is lifted.
 */
describe("per-corridor pauses", () => {
  let ops: OpsStack;
  beforeAll(async () => {
    ops = await startOpsStack();
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("a paused country is marked in the picker, refused with when to retry, and the others still work", async () => {
    const { tg, sandbox } = ops.stack;
    const on = await ask(ops.group, ops.ada, "/maintenance on NG 30m NIP is down at the moment");
    expect(on.text).toMatch(/paused for Nigeria, until \d\d:\d\d WAT/);
    expect(on.text).toContain("New transfers to Nigeria are paused");
    expect(on.text).toContain("Please try again in 30 minutes.");

    const user = tg.user({ id: 8_401, first_name: "Amara", language_code: "en" });
    const picker = await startSend(user);
    expect(picker.text).toMatch(/Nigeria · bank account · minimum ₦[\d,.]+ · ⏸ paused/);
    expect(picker.text).not.toMatch(/Kenya[^\n]*paused/);

    const refused = await pressAndEdit(user, picker, /Nigeria/, /New transfers to Nigeria are paused/);
    expect(refused.message_id).toBe(picker.message_id);
    expect(refused.text).toMatch(/Please try again in (29|30) minutes\./);
    expect(refused.text).toContain("NIP is down at the moment");
    expect(refused.text).toContain("Where does it go?");
    expect(buttons(refused)).toContain("🇰🇪 Kenya · M-Pesa · Paybill · Till");

    // Kenya goes on as usual from the same picker.
    await pressAndEdit(user, refused, /Kenya/, /How should the money arrive/);
    await user.send("/cancel");
    await user.nextMessage({ match: /Cancelled/ });

    // Buying is not paused by a payout corridor.
    await user.send("/buy");
    expect((await user.nextMessage()).text).not.toMatch(/paused/);
    await user.send("/cancel");
    await user.nextMessage({ match: /Cancelled/ });

    const quotes = sandbox.state.quotes.size;
    await ask(ops.group, ops.ben, "/maintenance off NG");
    const again = await nigerianRecipient(user);
    const card = await typeAndRead(user, "10000", /You pay/);
    expect(again.text).toMatch(/How much/);
    expect(card.text).toContain("Recipient gets: ₦10,000.00");
    expect(sandbox.state.quotes.size).toBe(quotes + 1);
    await user.send("/cancel");
  });

  it("a corridor paused while someone is mid-flow stops them at the quote step", async () => {
    const { tg, sandbox } = ops.stack;
    const user = tg.user({ id: 8_402, first_name: "Obi", language_code: "en" });
    await nigerianRecipient(user);
    await ask(ops.group, ops.ada, "/maintenance on NG");
    const quotes = sandbox.state.quotes.size;
    const notice = await typeAndRead(user, "10000", /New transfers to Nigeria are paused/);
    expect(notice.text).toContain("Please try again a little later.");
    expect(sandbox.state.quotes.size).toBe(quotes);
    await ask(ops.group, ops.ada, "/maintenance off NG");
  });

  it("buying has its own switch; ops see every pause in /maintenance and /health; a pause lapses by itself", async () => {
    const { tg, app } = ops.stack;
    await ask(ops.group, ops.ada, "/maintenance on BUY 2h");
    await ask(ops.group, ops.ada, "/maintenance on GH,ZA");
    const user = tg.user({ id: 8_403, first_name: "Kwame", language_code: "en" });
    await user.send("/buy");
    const refused = await user.nextMessage();
    expect(refused.text).toContain("Buying bitcoin is paused for a short maintenance.");
    expect(refused.text).toContain("Please try again in 2 hours.");

    const status = await ask(ops.group, ops.ben, "/maintenance");
    expect(status.text).toMatch(/South Africa: paused since .*, until you resume/);
    expect(status.text).toMatch(/Ghana: paused since/);
    expect(status.text).toMatch(/Buy bitcoin: paused since .*, until \d\d:\d\d WAT/);
    expect(status.text).not.toMatch(/everything: paused/);
    const health = await ask(ops.group, ops.ben, "/health");
    expect(health.text).toContain("paused: South Africa, Ghana, Buy bitcoin");
    expect((await ask(ops.group, ops.ben, "/maintenance pause it")).text).toMatch(/did not understand/);

    // Two hours later (the clock of the stored pause moved back): buying is open again without anyone acting.
    const state = await app.store.settings.maintenance();
    const buy = state.scopes?.BUY;
    expect(buy?.until).toBeDefined();
    await app.store.settings.setMaintenance({
      ...state,
      scopes: { ...state.scopes, BUY: { ...buy, until: new Date(Date.now() - 1_000).toISOString() } },
    });
    await user.send("/buy");
    expect((await user.nextMessage()).text).not.toMatch(/paused/);
    await user.send("/cancel");

    await ask(ops.group, ops.ada, "/maintenance off");
    expect((await ask(ops.group, ops.ben, "/health")).text).toMatch(/▶️ open/);
    const audit = (await app.store.audit.recent(20)).filter((entry) =>
      entry.action.startsWith("maintenance."),
    );
    expect(audit.map((entry) => entry.details?.scopes)).toEqual(
      expect.arrayContaining(["BUY", "GH,ZA", "all"]),
    );
  });
});
