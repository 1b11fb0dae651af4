import type { Update } from "grammy/types";
import type { LocalTelegram, ShownMessage } from "./local-telegram.ts";
import { SimUser } from "./sim-user.ts";

/**
 * Simulated users walking a scripted journey through `handleUpdate`, each user strictly one update after the
 * other (they "read" the bot's answer before acting), many users at once. Every step checks that the bot showed
 * what the next step needs, so a broken flow shows up as failures in the report instead of fast nonsense.
 */
export interface Expect {
  /** A button whose callback_data matches must be on a message the bot sent or edited for this update. */
  button?: RegExp;
  /** The bot sent a photo (the invoice QR). */
  photo?: boolean;
}

export type Action =
  | { text: string | ((userIndex: number) => string) }
  | {
      /** Press the newest button whose callback_data matches. */
      press: RegExp;
      /** What the floor bot's user presses instead (the floor shows no such button). */
      floorData: string;
    };

export interface Step {
  name: string;
  action: Action;
  expect?: Expect;
}

export interface Failure {
  userId: number;
  step: string;
  reason: string;
  /** What the bot last showed (trimmed), to see what went wrong. */
  shown: string;
}

export interface RunOptions {
  handle: (update: Update) => Promise<unknown>;
  tg: LocalTelegram;
  steps: readonly Step[];
  users: number;
  firstUserId: number;
  /** Users walking at the same time (default: all). */
  concurrency?: number;
  /** Check expectations and press real buttons (false for the floor bot). */
  scripted: boolean;
  /** Called when a user finished (or failed) the journey. */
  onUserDone?: (userId: number) => unknown;
  /** Called before each update is handled, outside the timed region (per-step Redis counts). */
  beforeStep?: (userId: number, step: Step, index: number) => unknown;
  /** Called after each step of each user, outside the timed region (memory bench, per-step Redis counts). */
  afterStep?: (userId: number, step: Step, index: number) => unknown;
}

export interface RunResult {
  updates: number;
  wallMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  latenciesMs: number[];
  byStep: Record<string, number[]>;
  /** CPU of the whole process while each update was handled (meaningful when users walk one at a time). */
  cpuByStep: Record<string, number[]>;
  failures: Failure[];
  completedJourneys: number;
}

export async function runJourneys(options: RunOptions): Promise<RunResult> {
  const { tg, steps } = options;
  const latenciesMs: number[] = [];
  const byStep: Record<string, number[]> = Object.fromEntries(steps.map((step) => [step.name, []]));
  const cpuByStep: Record<string, number[]> = Object.fromEntries(steps.map((step) => [step.name, []]));
  const failures: Failure[] = [];
  let completed = 0;
  let nextIndex = 0;

  async function walk(index: number): Promise<void> {
    const userId = options.firstUserId + index;
    const user = new SimUser(userId, tg);
    for (const [stepIndex, step] of steps.entries()) {
      const update = buildUpdate(user, index, step, options.scripted, tg);
      if ("failure" in update) {
        failures.push({ userId, step: step.name, reason: update.failure, shown: describe(tg, userId) });
        return;
      }
      await options.beforeStep?.(userId, step, stepIndex);
      tg.takeTouched(userId);
      const cpu = process.cpuUsage();
      const started = performance.now();
      await options.handle(update.update);
      const elapsed = performance.now() - started;
      const used = process.cpuUsage(cpu);
      latenciesMs.push(elapsed);
      byStep[step.name]?.push(elapsed);
      cpuByStep[step.name]?.push((used.user + used.system) / 1000);
      if (options.scripted && step.expect) {
        const problem = unmet(step.expect, tg.takeTouched(userId));
        if (problem) {
          failures.push({ userId, step: step.name, reason: problem, shown: describe(tg, userId) });
          return;
        }
      }
      await options.afterStep?.(userId, step, stepIndex);
    }
    completed += 1;
  }

  async function worker(): Promise<void> {
    for (;;) {
      const index = nextIndex;
      nextIndex += 1;
      if (index >= options.users) return;
      await walk(index);
      await options.onUserDone?.(options.firstUserId + index);
    }
  }

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const workers = Math.max(1, Math.min(options.concurrency ?? options.users, options.users));
  await Promise.all(Array.from({ length: workers }, () => worker()));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    updates: latenciesMs.length,
    wallMs,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    latenciesMs,
    byStep,
    cpuByStep,
    failures,
    completedJourneys: completed,
  };
}

export function buildUpdate(
  user: SimUser,
  index: number,
  step: Step,
  scripted: boolean,
  tg: LocalTelegram,
): { update: Update } | { failure: string } {
  const action = step.action;
  if ("text" in action) {
    return { update: user.text(typeof action.text === "function" ? action.text(index) : action.text) };
  }
  if (!scripted) {
    const last: ShownMessage = tg.lastMessage(user.id) ?? {
      messageId: 1,
      text: "",
      markup: undefined,
      photo: false,
    };
    return { update: user.press(last, action.floorData) };
  }
  const found = tg.findButton(user.id, action.press);
  if (!found) return { failure: `no button matching ${action.press}` };
  return { update: user.press(found.message, found.data) };
}

export function unmet(expect: Expect, touched: ShownMessage[]): string | undefined {
  if (expect.photo && !touched.some((message) => message.photo)) return "expected a photo";
  if (expect.button) {
    const pattern = expect.button;
    const has = touched.some((message) =>
      (message.markup?.inline_keyboard ?? []).some((row) =>
        row.some((button) => {
          const data = (button as { callback_data?: string }).callback_data;
          return data !== undefined && pattern.test(data);
        }),
      ),
    );
    if (!has) return `expected a button matching ${pattern}`;
  }
  return undefined;
}

function describe(tg: LocalTelegram, chatId: number): string {
  const last = tg.lastMessage(chatId);
  const toast = tg.lastToast(chatId);
  const text = (last?.text ?? "(nothing)").replace(/\s+/g, " ").slice(0, 160);
  const buttons = (last?.markup?.inline_keyboard ?? [])
    .flat()
    .map((button) => (button as { callback_data?: string }).callback_data ?? button.text)
    .slice(0, 8)
    .join(", ");
  return `${text}${buttons ? ` [${buttons}]` : ""}${toast ? ` (toast: ${toast})` : ""}`;
}
