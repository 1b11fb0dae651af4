import { Api } from "grammy";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isAdminChat } from "#src/bot/ops/roles.js";
import { forgetOpsAdmin, isOpsAdmin } from "#src/bot/rules/ops-admins.js";
import { loadConfig } from "#src/config.js";
import { silentLogger } from "#src/log/logger.js";
import { createStore } from "#src/store/index.js";
import { freshRedis } from "../../../support/redis.ts";
import {
  type GroupDriver,
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../../support/telegram-driver.ts";

/**
 * Who counts as ops: listed in ADMIN_USER_IDS and an administrator of the ops group, read from Telegram (the
 * emulator, over HTTP) and cached in Redis for a few seconds.
 */
const ADMIN_CHAT = -1_001_555_000_001;
const CREATOR = 7_101;
const ADMIN = 7_102;
const MEMBER = 7_103;
const RESTRICTED = 7_104;
const KICKED = 7_105;
const OUTSIDER = 7_106;
const UNLISTED_ADMIN = 7_107;
const UNKNOWN = 9_999_999;
const LISTED = [CREATOR, ADMIN, MEMBER, RESTRICTED, KICKED, OUTSIDER, UNKNOWN];

describe("ops roles", () => {
  let tg: TelegramEmulator;
  let redis: Redis;
  let api: Api;
  let group: GroupDriver;
  const config = loadConfig({ ADMIN_CHAT_ID: String(ADMIN_CHAT), ADMIN_USER_IDS: LISTED.join(",") });
  const deps = () => ({ config, store: createStore(redis), logger: silentLogger() });
  const lookups = () => tg.callsTo("getChatMember").length;

  beforeAll(async () => {
    tg = await startTelegramEmulator();
    redis = await freshRedis();
    api = new Api(tg.token, { apiRoot: tg.apiRoot });
    group = tg.group({ id: ADMIN_CHAT, title: "Ops" });
    group.addMember({ id: CREATOR, is_bot: false, first_name: "Creator" }, "creator");
    group.addMember({ id: ADMIN, is_bot: false, first_name: "Admin" }, "administrator");
    group.addMember({ id: MEMBER, is_bot: false, first_name: "Member" }, "member");
    group.addMember({ id: RESTRICTED, is_bot: false, first_name: "Restricted" }, "restricted");
    group.addMember({ id: KICKED, is_bot: false, first_name: "Kicked" }, "kicked");
    group.addMember({ id: UNLISTED_ADMIN, is_bot: false, first_name: "Unlisted" }, "administrator");
    tg.user({ id: OUTSIDER, first_name: "Outsider" });
  });
  beforeEach(async () => {
    await redis.flushdb();
  });
  afterAll(async () => {
    await redis.quit();
    await tg.close();
  });

  it("counts listed creators and administrators of the ops group; not listed members, restricted, kicked or outsiders", async () => {
    expect(await isOpsAdmin(deps(), api, CREATOR)).toBe(true);
    expect(await isOpsAdmin(deps(), api, ADMIN)).toBe(true);
    expect(await isOpsAdmin(deps(), api, MEMBER)).toBe(false);
    expect(await isOpsAdmin(deps(), api, RESTRICTED)).toBe(false);
    expect(await isOpsAdmin(deps(), api, KICKED)).toBe(false);
    expect(await isOpsAdmin(deps(), api, OUTSIDER)).toBe(false);
  });

  it("does not count an administrator of the group nobody listed, and does not even ask Telegram", async () => {
    const before = lookups();
    expect(await isOpsAdmin(deps(), api, UNLISTED_ADMIN)).toBe(false);
    expect(lookups()).toBe(before);
  });

  it("caches an answer for at most 10 s: one getChatMember for a burst, a fresh one after forgetting", async () => {
    const before = lookups();
    for (let index = 0; index < 5; index += 1) expect(await isOpsAdmin(deps(), api, ADMIN)).toBe(true);
    expect(lookups()).toBe(before + 1);
    const ttl = await redis.ttl(`ops:admin:${ADMIN_CHAT}:${ADMIN}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10);

    group.addMember({ id: ADMIN, is_bot: false, first_name: "Admin" }, "member"); // demoted, nobody told us
    expect(await isOpsAdmin(deps(), api, ADMIN)).toBe(true); // still cached
    await forgetOpsAdmin(deps(), ADMIN);
    expect(await isOpsAdmin(deps(), api, ADMIN)).toBe(false);
    group.addMember({ id: ADMIN, is_bot: false, first_name: "Admin" }, "administrator");
  });

  it("asks Telegram afresh when told to, whatever the cache says, and keeps the new answer", async () => {
    expect(await isOpsAdmin(deps(), api, ADMIN)).toBe(true);
    group.addMember({ id: ADMIN, is_bot: false, first_name: "Admin" }, "member");
    const before = lookups();
    expect(await isOpsAdmin(deps(), api, ADMIN, { fresh: true })).toBe(false);
    expect(lookups()).toBe(before + 1);
    expect(await isOpsAdmin(deps(), api, ADMIN)).toBe(false);
    group.addMember({ id: ADMIN, is_bot: false, first_name: "Admin" }, "administrator");
  });

  it("treats a failed lookup as not ops (and retries it soon)", async () => {
    // An id Telegram does not know: getChatMember answers 400.
    expect(await isOpsAdmin(deps(), api, UNKNOWN)).toBe(false);
    const ttl = await redis.ttl(`ops:admin:${ADMIN_CHAT}:${UNKNOWN}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3);
  });

  it("knows the ops chat; without one configured nobody is ops, listed or not", async () => {
    expect(isAdminChat({ config }, ADMIN_CHAT)).toBe(true);
    expect(isAdminChat({ config }, -1_001_555_000_002)).toBe(false);
    const noGroup = {
      config: loadConfig({ ADMIN_USER_IDS: LISTED.join(",") }),
      store: createStore(redis),
      logger: silentLogger(),
    };
    expect(isAdminChat(noGroup, undefined)).toBe(false);
    expect(await isOpsAdmin(noGroup, api, CREATOR)).toBe(false);
  });
});
