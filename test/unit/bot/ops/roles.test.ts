import { Api } from "grammy";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { forgetOpsMembership, isAdminChat, isOpsUser } from "#src/bot/ops/roles.js";
import { loadConfig } from "#src/config.js";
import { silentLogger } from "#src/log/logger.js";
import { createStore } from "#src/store/index.js";
import { freshRedis } from "../../../support/redis.ts";
import {
  type GroupDriver,
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../../support/telegram-driver.ts";

/** Who counts as ops: admin-group membership read from Telegram (the emulator, over HTTP), cached in Redis. */
const ADMIN_CHAT = -1_001_555_000_001;
const LISTED = 7_001;

describe("ops roles", () => {
  let tg: TelegramEmulator;
  let redis: Redis;
  let api: Api;
  let group: GroupDriver;
  const config = loadConfig({ ADMIN_CHAT_ID: String(ADMIN_CHAT), ADMIN_USER_IDS: String(LISTED) });
  const deps = () => ({ config, store: createStore(redis), logger: silentLogger() });

  beforeAll(async () => {
    tg = await startTelegramEmulator();
    redis = await freshRedis();
    api = new Api(tg.token, { apiRoot: tg.apiRoot });
    group = tg.group({ id: ADMIN_CHAT, title: "Ops" });
    group.addMember({ id: 7_101, is_bot: false, first_name: "Creator" }, "creator");
    group.addMember({ id: 7_102, is_bot: false, first_name: "Admin" }, "administrator");
    group.addMember({ id: 7_103, is_bot: false, first_name: "Member" }, "member");
    group.addMember({ id: 7_104, is_bot: false, first_name: "Restricted" }, "restricted");
    group.addMember({ id: 7_105, is_bot: false, first_name: "Kicked" }, "kicked");
    tg.user({ id: 7_106, first_name: "Outsider" });
  });
  beforeEach(async () => {
    await redis.flushdb();
  });
  afterAll(async () => {
    await redis.quit();
    await tg.close();
  });

  it("counts creators, administrators and members of the admin group, not restricted, kicked or outsiders", async () => {
    expect(await isOpsUser(deps(), api, 7_101)).toBe(true);
    expect(await isOpsUser(deps(), api, 7_102)).toBe(true);
    expect(await isOpsUser(deps(), api, 7_103)).toBe(true);
    expect(await isOpsUser(deps(), api, 7_104)).toBe(false);
    expect(await isOpsUser(deps(), api, 7_105)).toBe(false);
    expect(await isOpsUser(deps(), api, 7_106)).toBe(false);
  });

  it("counts the configured user ids without asking Telegram", async () => {
    const before = tg.callsTo("getChatMember").length;
    expect(await isOpsUser(deps(), api, LISTED)).toBe(true);
    expect(tg.callsTo("getChatMember").length).toBe(before);
  });

  it("caches a membership briefly: one getChatMember for a burst, a fresh one after forgetting", async () => {
    const before = tg.callsTo("getChatMember").length;
    for (let index = 0; index < 5; index += 1) expect(await isOpsUser(deps(), api, 7_103)).toBe(true);
    expect(tg.callsTo("getChatMember").length).toBe(before + 1);
    expect(await redis.ttl(`ops:member:${ADMIN_CHAT}:7103`)).toBeGreaterThan(0);

    group.removeMember({ id: 7_103, is_bot: false, first_name: "Member" });
    expect(await isOpsUser(deps(), api, 7_103)).toBe(true); // still cached
    await forgetOpsMembership(deps(), 7_103);
    expect(await isOpsUser(deps(), api, 7_103)).toBe(false);
    group.addMember({ id: 7_103, is_bot: false, first_name: "Member" }, "member");
  });

  it("treats a failed lookup as not ops (and retries it soon)", async () => {
    // An id Telegram does not know: getChatMember answers 400.
    expect(await isOpsUser(deps(), api, 9_999_999)).toBe(false);
    const ttl = await redis.ttl(`ops:member:${ADMIN_CHAT}:9999999`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10);
  });

  it("knows the admin chat; without one configured nobody outside the id list is ops", async () => {
    expect(isAdminChat({ config }, ADMIN_CHAT)).toBe(true);
    expect(isAdminChat({ config }, -1_001_555_000_002)).toBe(false);
    const noGroup = {
      config: loadConfig({ ADMIN_USER_IDS: String(LISTED) }),
      store: createStore(redis),
      logger: silentLogger(),
    };
    expect(isAdminChat(noGroup, undefined)).toBe(false);
    expect(await isOpsUser(noGroup, api, 7_101)).toBe(false);
    expect(await isOpsUser(noGroup, api, LISTED)).toBe(true);
  });
});
