import { validate } from "@telegram-apps/init-data-node";
import type { BotDeps } from "#src/bot/context.js";
import type { UserRecord } from "#src/store/index.js";

/** Telegram's rule: init data older than an hour is refused even with a valid signature. */
const MAX_AGE_SECONDS = 3600;
/** Init data is a few hundred bytes; anything far larger is not from Telegram. */
const MAX_INIT_DATA = 4096;

/**
 * The Telegram user id in Mini App init data signed with this bot's token (HMAC-SHA256 keyed by
 * HMAC("WebAppData", token), as Telegram documents), or undefined for forged, expired or another bot's data.
 */
export function userIdFromInitData(initData: string, botToken: string): number | undefined {
  if (!initData || initData.length > MAX_INIT_DATA) return undefined;
  try {
    validate(initData, botToken, { expiresIn: MAX_AGE_SECONDS });
    const user = JSON.parse(new URLSearchParams(initData).get("user") ?? "null") as { id?: unknown } | null;
    return typeof user?.id === "number" && Number.isSafeInteger(user.id) ? user.id : undefined;
  } catch {
    return undefined;
  }
}

/** `Authorization: tma <init data>`, as Telegram's Mini App guides send it. */
export function initDataFromHeader(header: string | undefined): string {
  return header?.startsWith("tma ") ? header.slice(4) : "";
}

/**
 * The approved merchant behind a request, read on every request: a merchant ops revoke loses access from that
 * moment, whatever init data they still hold.
 */
export async function merchantFor(
  deps: BotDeps,
  botToken: string,
  header: string | undefined,
): Promise<UserRecord | undefined> {
  const id = userIdFromInitData(initDataFromHeader(header), botToken);
  if (id === undefined) return undefined;
  const user = await deps.store.users.get(id);
  return user?.merchant ? user : undefined;
}
