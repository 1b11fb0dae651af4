import type { Logger } from "pino";
import type { Activity } from "./activity.ts";
import { notFound, TelegramApiError } from "./errors.ts";
import type { FaultInjector } from "./faults.ts";
import type { Handler, MethodContext } from "./methods/context.ts";
import { inlineMethods } from "./methods/inline.ts";
import { messageMethods } from "./methods/messages.ts";
import { metaMethods } from "./methods/meta.ts";
import { updateMethods } from "./methods/updates.ts";
import type { Params } from "./params.ts";
import type { RateLimiter } from "./rate-limits.ts";
import type { CallRecord } from "./types.ts";

const HANDLERS: Record<string, Handler> = {
  ...messageMethods,
  ...metaMethods,
  ...updateMethods,
  ...inlineMethods,
};
/** Method names are case-insensitive on Telegram. */
const BY_LOWER = new Map(
  Object.entries(HANDLERS).map(([name, handler]) => [name.toLowerCase(), { name, handler }]),
);

type CallOutcome = { status: number; body: Record<string, unknown> } | "network-error";

interface DispatcherDeps {
  context: Omit<MethodContext, "signal">;
  faults: FaultInjector;
  limiter: RateLimiter;
  activity: Activity;
  logger: Logger;
  callLogLimit: number;
}

/** Runs one Bot API call: faults, flood control, the method itself, the call log. */
export class Dispatcher {
  readonly calls: CallRecord[] = [];

  constructor(private readonly deps: DispatcherDeps) {}

  static knows(method: string): boolean {
    return BY_LOWER.has(method.toLowerCase());
  }

  async call(method: string, params: Params, signal: AbortSignal): Promise<CallOutcome> {
    const known = BY_LOWER.get(method.toLowerCase());
    const name = known?.name ?? method;
    const logged = params.toLog();
    const polling = name === "getUpdates";
    if (!polling) this.deps.activity.begin();
    try {
      if (!known) {
        this.deps.logger.warn({ method }, "telegram emulator: unknown or unsupported method");
        throw notFound();
      }
      const before = this.deps.faults.take(name, logged, "before");
      if (before?.kind === "network") return this.record(name, logged, 0, "network error (injected)", true);
      if (before?.kind === "delay") {
        await new Promise((resolve) => setTimeout(resolve, before.ms));
        if (before.drop) return this.record(name, logged, 0, "network error (injected)", true);
      } else if (before) throw Object.assign(before.error, { injected: true });
      const chatId = typeof logged.chat_id === "number" ? logged.chat_id : Number(logged.chat_id);
      this.deps.limiter.check(name, Number.isFinite(chatId) ? chatId : undefined, chatId < 0);
      const result = await known.handler(params, { ...this.deps.context, signal });
      const after = this.deps.faults.take(name, logged, "after");
      if (after?.kind === "network") return this.record(name, logged, 0, "network error (injected)", true);
      if (after?.kind === "delay") {
        await new Promise((resolve) => setTimeout(resolve, after.ms));
        if (after.drop) return this.record(name, logged, 0, "network error (injected)", true);
      } else if (after) throw Object.assign(after.error, { injected: true });
      this.record(name, logged, 200, undefined, false, result);
      return { status: 200, body: { ok: true, result } };
    } catch (error) {
      if (!(error instanceof TelegramApiError)) {
        this.deps.logger.error({ err: error, method: name }, "telegram emulator: method crashed");
        this.record(name, logged, 500, "Internal Server Error", false);
        return { status: 500, body: { ok: false, error_code: 500, description: "Internal Server Error" } };
      }
      const injected = (error as { injected?: boolean }).injected === true;
      this.record(name, logged, error.errorCode, error.description, injected);
      return { status: error.errorCode, body: error.toJSON() };
    } finally {
      if (!polling) this.deps.activity.end();
    }
  }

  private record(
    method: string,
    params: Record<string, unknown>,
    status: number,
    description: string | undefined,
    fault: boolean,
    result?: unknown,
  ): "network-error" {
    if (method !== "getUpdates" || status !== 200)
      this.deps.logger.debug(
        { method, status, chat_id: params.chat_id, description },
        "telegram emulator call",
      );
    this.calls.push({
      method,
      params,
      at: Date.now(),
      status,
      ok: status === 200,
      ...(description ? { description } : {}),
      ...(result !== undefined && method !== "getUpdates" ? { result } : {}),
      ...(fault ? { fault } : {}),
    });
    if (this.calls.length > this.deps.callLogLimit)
      this.calls.splice(0, this.calls.length - this.deps.callLogLimit);
    return "network-error";
  }
}
