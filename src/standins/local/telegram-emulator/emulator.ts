import type { AddressInfo } from "node:net";
import type { BotCommand, Update, User } from "grammy/types";
import type { Logger } from "pino";
import { silentLogger } from "#src/log/logger.js";
import { Activity } from "./activity.ts";
import { describeEvent } from "./chat-events.ts";
import { Dispatcher } from "./dispatcher.ts";
import { FaultInjector } from "./faults.ts";
import { GroupDriver } from "./group-driver.ts";
import { botIdFromToken, generateBotToken, randomBotId } from "./ids.ts";
import { resolveCommandMenu } from "./methods/meta.ts";
import { Params } from "./params.ts";
import { RateLimiter, type RateLimitOptions } from "./rate-limits.ts";
import { createApiServer } from "./server.ts";
import type { BotIdentity, CallRecord, MemberStatus, StoredFile } from "./types.ts";
import { UpdateQueue } from "./updates.ts";
import { UserDriver } from "./user-driver.ts";
import { WebhookPusher } from "./webhook.ts";
import { World } from "./world.ts";

export interface TelegramEmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** A token to accept; default: a fresh BotFather-shaped one. */
  token?: string;
  bot?: Partial<BotIdentity>;
  logger?: Logger;
  /** Telegram's flood limits (429 with retry_after); off by default. */
  rateLimits?: boolean | Partial<RateLimitOptions>;
  /** How long a callback query may wait for its answer (Telegram: about 15 s). */
  callbackAnswerTimeoutMs?: number;
  /** Default wait of the driver's next…()/waitFor() (10 s: tests run on busy machines). */
  defaultTimeoutMs?: number;
  /** Webhook retry backoff after a failed delivery. */
  webhookRetryBaseMs?: number;
  webhookRetryMaxMs?: number;
  /** How long a webhook delivery may take before it counts as failed and is retried (default 30 s). */
  webhookTimeoutMs?: number;
  /** Request bodies above this get Telegram's 413 (default 50 MB). */
  maxUploadBytes?: number;
  /** Calls kept in the call log (default 10 000; oldest dropped first). */
  callLogLimit?: number;
}

interface UserSpec extends Partial<Omit<User, "id" | "is_bot">> {
  id: number;
  /** true: the user already pressed Start, so the bot may write first. Default false, like Telegram. */
  started?: boolean;
}

interface GroupSpec {
  id?: number;
  title: string;
  type?: "group" | "supergroup";
  /** The bot's status in the group (default "member"). */
  botStatus?: MemberStatus;
  privacyMode?: boolean;
}

/** A local stand-in for api.telegram.org plus a driver for the people who talk to the bot. */
export class TelegramEmulator {
  readonly faults = new FaultInjector();
  private readonly world: World;
  private readonly updates = new UpdateQueue(1000);
  private readonly activity = new Activity();
  private readonly limiter = new RateLimiter(() => Date.now());
  private readonly webhook: WebhookPusher;
  private readonly dispatcher: Dispatcher;
  private readonly drivers = new Map<number, UserDriver | GroupDriver>();
  private readonly closing = new AbortController();
  private readonly server;
  private nextGroupId = -1_001_000_000_001;
  readonly token: string;
  apiRoot = "";
  port = 0;

  constructor(private readonly options: TelegramEmulatorOptions = {}) {
    const logger = options.logger ?? silentLogger();
    const botId = options.token ? (botIdFromToken(options.token) ?? randomBotId()) : randomBotId();
    this.token = options.token ?? generateBotToken(botId);
    const bot: User = {
      id: botId,
      is_bot: true,
      first_name: options.bot?.first_name ?? "Payout Assistant",
      username: options.bot?.username ?? "payout_assistant_bot",
    };
    this.world = new World(bot, () => Date.now());
    this.limiter.configure(options.rateLimits);
    this.updates.listeners.add(() => this.activity.touch());
    this.webhook = new WebhookPusher(this.updates, {
      retryBaseMs: options.webhookRetryBaseMs ?? 100,
      retryMaxMs: options.webhookRetryMaxMs ?? 2_000,
      timeoutMs: options.webhookTimeoutMs ?? 30_000,
      logger,
      onReply: async (method, params) => {
        await this.dispatcher.call(method, new Params(params), this.closing.signal);
      },
      onDeliveryStart: () => this.activity.begin(),
      onDeliveryEnd: () => this.activity.end(),
    });
    this.dispatcher = new Dispatcher({
      context: {
        world: this.world,
        updates: this.updates,
        webhook: this.webhook,
        logger,
        callbackAnswerTimeoutMs: options.callbackAnswerTimeoutMs ?? 15_000,
      },
      faults: this.faults,
      limiter: this.limiter,
      activity: this.activity,
      logger,
      callLogLimit: options.callLogLimit ?? 10_000,
    });
    this.server = createApiServer({
      token: this.token,
      dispatcher: this.dispatcher,
      world: this.world,
      logger,
      maxUploadBytes: options.maxUploadBytes ?? 50 * 1024 * 1024,
    });
  }

  async listen(): Promise<this> {
    const host = this.options.host ?? "127.0.0.1";
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.options.port ?? 0, host, () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.apiRoot = `http://${host.includes(":") ? `[${host}]` : host}:${this.port}`;
    return this;
  }

  /** The bot's own User (what getMe returns). */
  get bot(): User {
    return this.world.bot;
  }

  /** A user and their private chat with the bot; the same id always returns the same driver. */
  user(spec: UserSpec): UserDriver {
    const existing = this.drivers.get(spec.id);
    if (existing instanceof UserDriver) return existing;
    if (spec.id <= 0) throw new Error("user ids are positive");
    const { started, ...fields } = spec;
    const state = this.world.ensureUser({ first_name: `User ${spec.id}`, ...fields });
    if (started) state.started = true;
    const driver = new UserDriver(this.host(), this.world.privateChat(spec.id), state);
    this.drivers.set(spec.id, driver);
    return driver;
  }

  /** A group chat the bot is in (privacy mode on by default). */
  group(spec: GroupSpec): GroupDriver {
    const id = spec.id ?? this.nextGroupId--;
    const existing = this.drivers.get(id);
    if (existing instanceof GroupDriver) return existing;
    const state = this.world.groupChat({ id, title: spec.title, type: spec.type, botStatus: spec.botStatus });
    if (spec.privacyMode !== undefined) state.privacyMode = spec.privacyMode;
    const driver = new GroupDriver(this.host(), state);
    this.drivers.set(id, driver);
    return driver;
  }

  private host() {
    return {
      world: this.world,
      updates: this.updates,
      defaultTimeoutMs: this.options.defaultTimeoutMs ?? 10_000,
      calls: () => this.dispatcher.calls,
      closing: this.closing.signal,
    };
  }

  /** Bytes of a photo or document the bot sent (by file_id). */
  fileBytes(fileId: string): Buffer {
    return this.file(fileId).bytes;
  }

  file(fileId: string): StoredFile {
    const file = this.world.files.get(fileId);
    if (!file) throw new Error(`unknown file_id ${fileId}`);
    return file;
  }

  /** The call log, oldest first; getUpdates polls are left out unless asked for. */
  calls(options: { method?: string; includePolling?: boolean } = {}): CallRecord[] {
    const method = options.method?.toLowerCase();
    return this.dispatcher.calls.filter(
      (call) =>
        (method === undefined || call.method.toLowerCase() === method) &&
        (options.includePolling || method === "getupdates" || call.method !== "getUpdates"),
    );
  }

  callsTo(method: string): CallRecord[] {
    return this.calls({ method });
  }

  /** Updates queued and not yet confirmed by the bot (getUpdates offset or a 2xx webhook answer). */
  pendingUpdates(): readonly Update[] {
    return this.updates.pending();
  }

  /** Queue any update by hand (the driver covers messages, button presses, my_chat_member and chat_member). */
  pushUpdate(body: Omit<Update, "update_id">): Update {
    return this.updates.push(body);
  }

  /**
   * Resolves when the bot has taken every update, no call or webhook delivery is in flight and nothing
   * happened for `quietMs` — for tests asserting that the bot sent NOTHING.
   */
  idle(options: { quietMs?: number; timeoutMs?: number } = {}): Promise<void> {
    return this.activity.idle(
      {
        quietMs: options.quietMs ?? 200,
        timeoutMs: options.timeoutMs ?? this.options.defaultTimeoutMs ?? 10_000,
      },
      () => this.updates.size,
      () => `${this.updates.size} pending update(s), ${this.activity.busy} call(s)/delivery(ies) in flight`,
    );
  }

  /** Resolves when a long poll is parked here: the bot is running and waiting for updates. */
  waitForPoll(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.updates.parkedCount > 0) return Promise.resolve();
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const onPark = () => {
        clearTimeout(timer);
        this.updates.parkListeners.delete(onPark);
        resolve();
      };
      const timer = setTimeout(() => {
        this.updates.parkListeners.delete(onPark);
        reject(new Error(`No getUpdates long poll arrived within ${timeoutMs} ms (is the bot polling?)`));
      }, timeoutMs);
      this.updates.parkListeners.add(onPark);
    });
  }

  webhookInfo() {
    return { url: this.webhook.config?.url, pending: this.updates.size, lastError: this.webhook.lastError };
  }

  /** The command menu a client would show `user` in `chatId` (default: their private chat). */
  commandMenu(
    user: UserDriver | number,
    options: { chatId?: number; languageCode?: string } = {},
  ): BotCommand[] {
    const userId = typeof user === "number" ? user : user.id;
    const language = options.languageCode ?? this.world.users.get(userId)?.user.language_code ?? "";
    return resolveCommandMenu(this.world, userId, options.chatId ?? userId, language);
  }

  /** Turn Telegram's flood limits on (true or custom numbers) or off. */
  setRateLimits(options: boolean | Partial<RateLimitOptions>): void {
    this.limiter.configure(options);
  }

  /** A readable summary of every chat, for debugging a failing test. */
  transcript(): string {
    const lines: string[] = [];
    for (const state of this.world.chats.values()) {
      lines.push(`chat ${state.chat.id}:`);
      for (const event of state.events) lines.push(`  ${describeEvent(event)}`);
    }
    return lines.join("\n");
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    this.updates.releaseParked();
    await this.webhook.close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

export async function startTelegramEmulator(
  options: TelegramEmulatorOptions = {},
): Promise<TelegramEmulator> {
  return new TelegramEmulator(options).listen();
}
