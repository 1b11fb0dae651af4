import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishCommandMenus } from "#src/bot/commands.js";
import { allFeatures } from "#src/bot/features.js";
import { ADMIN_CHAT_ID, type OpsStack, startOpsStack } from "./admin-stack.ts";

/**
 * Ops commands exist only inside the admin group, for ops. Anywhere else they must be indistinguishable from a
 * command that does not exist: the same menu reply in a private chat, the same silence in a group.
 */
const OPS_COMMANDS = [
  "/stats",
  "/health",
  "/wallets",
  "/profile",
  "/order 12345-6789",
  "/tx 12345-6789",
  "/user 8001",
  "/withdraw_ngn",
  "/withdraw_btc",
  "/maintenance on",
  "/broadcast",
  "/block 8002",
  "/unblock 8002",
  "/merchant approve 8002",
  "/merchants",
  "/simulate 12345-6789",
];
const LISTED_ADMIN = 8_009;

describe("ops commands outside the admin group", () => {
  let ops: OpsStack;
  beforeAll(async () => {
    ops = await startOpsStack({ adminUserIds: [LISTED_ADMIN] });
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("in a private chat, every ops command gets exactly the reply an unknown command gets", async () => {
    const { tg } = ops.stack;
    const listed = tg.user({ id: LISTED_ADMIN, first_name: "Lia", language_code: "en" });
    for (const user of [ops.ada, listed]) {
      await user.send("/definitely_not_a_command");
      const unknown = await user.nextMessage();
      expect(unknown.text).toMatch(/didn't understand/);
      for (const command of OPS_COMMANDS) {
        await user.send(command);
        const reply = await user.nextMessage();
        expect(reply.text, command).toBe(unknown.text);
        expect(reply.reply_markup, command).toEqual(unknown.reply_markup);
      }
      await tg.idle();
      expect(user.unconsumed()).toEqual([]);
    }
    // Nothing changed behind the scenes either.
    expect((await ops.stack.app.store.settings.maintenance()).paused).toBe(false);
    expect((await ops.stack.app.store.users.get(8_002))?.blocked ?? false).toBe(false);
  });

  it("in another group, ops commands get the same silence as unknown commands", async () => {
    const { tg } = ops.stack;
    const other = tg.group({ title: "Friends" }).addMember(ops.ada, "creator").addMember(ops.ben);
    await other.send(ops.ada, "/definitely_not_a_command");
    for (const command of OPS_COMMANDS) await other.send(ops.ada, command);
    await other.send(ops.ben, `/stats@${tg.bot.username}`);
    await tg.idle();
    expect(other.unconsumed()).toEqual([]);
  });

  it("in the admin group, anyone not ops gets silence — a listed plain member, an unlisted admin too; ops get answers", async () => {
    const { tg } = ops.stack;
    for (const member of [ops.rex, ops.mel, ops.ike]) {
      await ops.group.send(member, "/definitely_not_a_command");
      for (const command of ["/stats", "/health", "/withdraw_ngn", "/maintenance on", "/merchants"]) {
        await ops.group.send(member, command);
      }
    }
    await tg.idle();
    expect(ops.group.unconsumed()).toEqual([]);
    expect((await ops.stack.app.store.settings.maintenance()).paused).toBe(false);

    await ops.group.send(ops.cy, "/stats");
    expect((await ops.group.nextMessage()).text).toMatch(/Stats/);
    await ops.group.nextPhoto({ match: /Last 14 days/ });
    await ops.group.send(ops.ada, `/merchants@${tg.bot.username}`);
    expect((await ops.group.nextMessage()).text).toMatch(/No merchants yet/);
  });

  it("publishes a separate, translated command menu for the admin group", async () => {
    const { tg, app } = ops.stack;
    // In production the bot is in the group before it starts; here the group was created after app.start(),
    // whose publishing step could not find it yet: run that same step again now that it exists.
    const menus = { privateExtra: [] as string[], adminGroup: [] as string[] };
    for (const feature of allFeatures(app.deps)) {
      menus.privateExtra.push(...(feature.commands?.private ?? []));
      menus.adminGroup.push(...(feature.commands?.adminGroup ?? []));
    }
    await publishCommandMenus(app.bot.api, app.translator, { adminChatId: ADMIN_CHAT_ID, menus });
    const groupMenu = tg.commandMenu(ops.ada, { chatId: ADMIN_CHAT_ID, languageCode: "en" });
    expect(groupMenu.map((command) => command.command)).toEqual(
      expect.arrayContaining(["stats", "health", "withdraw_ngn", "withdraw_btc", "maintenance", "broadcast"]),
    );
    expect(groupMenu.find((command) => command.command === "withdraw_ngn")?.description).toMatch(
      /second admin/,
    );
    const privateMenu = tg.commandMenu(ops.ada, { languageCode: "en" }).map((command) => command.command);
    expect(privateMenu).toEqual(expect.arrayContaining(["newlink", "links", "link", "send"]));
    expect(privateMenu).not.toContain("stats");
    expect(privateMenu).not.toContain("withdraw_ngn");
  });
});
