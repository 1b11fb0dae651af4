import type { UserRecord } from "#src/store/user-record.js";
import type { UserRepository } from "#src/store/users.js";
import type { AccountLanguage } from "./account-language.ts";
import { type LanguageCode, resolveLanguage } from "./languages.ts";

/** The language to use for a user outside of an update (webhook notifications, broadcasts). */
export function languageResolver(users: UserRepository, account: Pick<AccountLanguage, "value">) {
  // `known`: a record the caller already read (deliveries do), so it is not read twice.
  return async (userId: number, known?: UserRecord): Promise<LanguageCode> => {
    const user = known ?? (await users.get(userId));
    return resolveLanguage({
      chosen: user?.language,
      telegram: user?.telegramLanguage,
      account: account.value,
    });
  };
}
