import type { Feature } from "#src/bot/features.js";
import type { Step } from "./runner.ts";

/**
 * The scripted journeys. Buttons are pressed by their callback_data (the callback-data.ts of each product folder in src/bot/), never by their
 * localized labels, so a copy change does not break the bench.
 */

/**
 * A distinct, valid 10-digit NUBAN per user. The sandbox derives the enquired name from the digits; numbers ending
 * in 999 would make the payout fail, 0000000000 / 1111111111 fail the enquiry, so they are avoided.
 */
export function accountNumberFor(userIndex: number): string {
  const digits = String(10_000_000 + ((userIndex * 7_919) % 89_000_000)).padStart(8, "0");
  const number = `01${digits}`;
  return number.endsWith("999") ? `01${digits.slice(0, 5)}123` : number;
}

/** The complete NGN bank payout, from /start to the Lightning invoice. */
export const PAYOUT_JOURNEY: readonly Step[] = [
  { name: "/start", action: { text: "/start" }, expect: { button: /^menu:send$/ } },
  {
    name: "Send money",
    action: { press: /^menu:send$/, floorData: "menu:send" },
    expect: { button: /^po-c:NG$/ },
  },
  {
    name: "Nigeria",
    action: { press: /^po-c:NG$/, floorData: "po-c:NG" },
    expect: { button: /^po-b:/ },
  },
  { name: 'bank "gtb"', action: { text: "gtb" }, expect: { button: /^po-b:000013$/ } },
  {
    name: "GTBank",
    action: { press: /^po-b:000013$/, floorData: "po-b:000013" },
  },
  { name: "account number", action: { text: accountNumberFor }, expect: { button: /^po-a:name_ok$/ } },
  {
    name: "name is right",
    action: { press: /^po-a:name_ok$/, floorData: "po-a:name_ok" },
  },
  { name: "amount", action: { text: "10000" }, expect: { button: /^po-ok:/ } },
  {
    name: "Confirm → invoice",
    action: { press: /^po-ok:/, floorData: "po-ok:12345-6789" },
    expect: { photo: true },
  },
];

/**
 * What exists before the payout flow lands: /start, the language picker, help and the fallback — the same
 * middleware stack (sequentialize, identify, session, conversations, cancel, every feature) on every update.
 */
export const BASIC_JOURNEY: readonly Step[] = [
  { name: "/start", action: { text: "/start" }, expect: { button: /^menu:send$/ } },
  {
    name: "Language",
    action: { press: /^menu:language$/, floorData: "menu:language" },
    expect: { button: /^lang:en$/ },
  },
  {
    name: "English",
    action: { press: /^lang:en$/, floorData: "lang:en" },
    expect: { button: /^menu:help$/ },
  },
  {
    name: "Help",
    action: { press: /^menu:help$/, floorData: "menu:help" },
    expect: { button: /^menu:help$/ },
  },
  { name: "free text", action: { text: "hello there" }, expect: { button: /^menu:send$/ } },
  { name: "/start again", action: { text: "/start" }, expect: { button: /^menu:send$/ } },
];

export function hasPayoutFlow(features: Feature[]): boolean {
  return features.some((feature) => feature.name === "payout");
}

export function chooseJourney(features: Feature[]): { name: string; steps: readonly Step[]; full: boolean } {
  return hasPayoutFlow(features)
    ? { name: "NGN bank payout (/start → invoice)", steps: PAYOUT_JOURNEY, full: true }
    : {
        name: "basic (/start, language, help, fallback) — the payout flow is not in allFeatures yet",
        steps: BASIC_JOURNEY,
        full: false,
      };
}
