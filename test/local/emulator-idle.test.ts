import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../support/telegram-driver.ts";
import { startPollingBot } from "./helpers.ts";

let tg: TelegramEmulator;
let stop: (() => Promise<void>) | undefined;
beforeEach(async () => {
  tg = await startTelegramEmulator();
});
afterEach(async () => {
  await stop?.();
  await tg.close();
});

describe("an idle bot", () => {
  it("long polls without spending CPU (a resource bound, not a timing assertion)", async () => {
    ({ stop } = await startPollingBot(tg, (bot) => bot.on("message", (ctx) => ctx.reply("hi"))));
    await tg.waitForPoll();
    const pollsBefore = tg.calls({ method: "getUpdates" }).length;
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const used = process.cpuUsage(before);
    // Bot and emulator share this process. A busy loop would burn ~1 s; parked polls burn ~nothing.
    expect((used.user + used.system) / 1000).toBeLessThan(250);
    expect(tg.calls({ method: "getUpdates" }).length - pollsBefore).toBeLessThanOrEqual(1);
    // And it still answers at once when an update arrives.
    const alice = tg.user({ id: 1001, first_name: "Alice" });
    await alice.send("wake up");
    expect((await alice.nextMessage()).text).toBe("hi");
  });

  it("lets a test prove the bot sent nothing", async () => {
    ({ stop } = await startPollingBot(tg, (bot) => bot.command("start", (ctx) => ctx.reply("menu"))));
    const alice = tg.user({ id: 1001, first_name: "Alice" });
    await alice.send("random words");
    await tg.idle();
    expect(tg.pendingUpdates()).toEqual([]);
    expect(alice.unconsumed()).toEqual([]);
    expect(tg.calls()).toEqual([
      expect.objectContaining({ method: "getMe" }),
      expect.objectContaining({ method: "deleteWebhook" }),
    ]);
    await alice.send("/start");
    await tg.idle();
    expect(alice.unconsumed().map((e) => e.kind)).toEqual(["message"]);
  });
});
