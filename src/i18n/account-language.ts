import type { Logger } from "#src/log/logger.js";
import { type LanguageCode, normalizeLanguage } from "./languages.ts";

/**
 * The payout account's language setting (GET /user → account.settings.language, e.g. "EN"), read at start and
 * refreshed periodically. It is the default for users who chose no language and whose Telegram client language we
 * don't ship.
 */
export class AccountLanguage {
  private current: LanguageCode | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly fetchSetting: () => Promise<string | undefined>,
    private readonly logger: Logger,
  ) {}

  get value(): LanguageCode | undefined {
    return this.current;
  }

  async refresh(): Promise<LanguageCode | undefined> {
    try {
      const setting = await this.fetchSetting();
      const language = normalizeLanguage(setting);
      if (language !== this.current) this.logger.info({ setting, language }, "account language setting");
      this.current = language;
    } catch (error) {
      this.logger.warn({ err: error }, "could not read the account language setting; keeping the last one");
    }
    return this.current;
  }

  start(everyMs = 5 * 60_000): void {
    this.stop();
    this.timer = setInterval(() => void this.refresh(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
