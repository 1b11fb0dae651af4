import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "#src/log/logger.js";
import { type Stack, startStack } from "../support/stack.ts";
import { type OpsStack, startOpsStack } from "./admin-stack.ts";
import { pressAndEdit, startSend, typeAndRead } from "./payout-support.ts";

/**
 * Incoming flood control at its production default (USER_RATE_LIMIT 20 updates per 10 s per user; the other e2e
 * files turn it off): a user flooding the bot gets one
 * notice and at most the limit's worth of work — here, name enquiries against the payout API — while other users
 * are served as usual.
 */
const NOTICE = /That's a lot of messages at once/;
const LIMIT = 20;

describe("incoming flood control", () => {
  let stack: Stack;
  const sandboxRequests: Array<{ method?: string; path?: string }> = [];

  beforeAll(async () => {
    // The sandbox logs every API request at debug: that log is the count of what reached the payout API.
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n")) {
          if (!line.trim()) continue;
          const parsed = JSON.parse(line) as { msg?: string; method?: string; path?: string };
          if (parsed.msg === "sandbox request") sandboxRequests.push(parsed);
        }
        done();
      },
    });
    stack = await startStack({
      env: { USER_RATE_LIMIT: `${LIMIT}/10` },
      sandbox: { port: 0, logger: createLogger({ level: "debug", pretty: false, destination }) },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const enquiries = () => sandboxRequests.filter((request) => request.path?.includes("name-enquiry")).length;

  it("answers a 50-a-second flood with one notice and no more payout API calls than the limit allows", async () => {
    const flooder = stack.tg.user({ id: 9401, first_name: "Flood" });
    const neighbour = stack.tg.user({ id: 9402, first_name: "Ada" });

    // Normal pace through a flow (4 updates, as fast as the test can tap) is never limited.
    const countries = await startSend(flooder);
    await pressAndEdit(flooder, countries, /Nigeria/, /Which bank/);
    const results = await typeAndRead(flooder, "gtb", /Banks matching/);
    await pressAndEdit(flooder, results, "GTBANK PLC", /10-digit account number/);
    const before = enquiries();
    const messagesBefore = flooder.messages().length;

    // 50 account numbers the API refuses: unlimited, each would be one name enquiry and one reply.
    const started = performance.now();
    for (let index = 0; index < 50; index += 1) {
      await flooder.send("0000000000");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    console.info(`flood: 50 messages sent in ${Math.round(performance.now() - started)} ms`);
    await neighbour.send("/start");
    await neighbour.nextMessage();
    await stack.tg.idle({ quietMs: 1_000, timeoutMs: 20_000 });

    const replies = flooder
      .messages()
      .slice(messagesBefore)
      .map((message) => message.text ?? "");
    const made = enquiries() - before;
    console.info(`flood: ${made} name enquiries, ${replies.length} replies`);
    expect(replies.filter((text) => NOTICE.test(text))).toHaveLength(1);
    // 4 updates of the flow already counted in this window.
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(LIMIT - 4);
    expect(replies.length).toBeLessThanOrEqual(LIMIT - 4 + 1);
    // The neighbour was served, and a flood of button presses is not needed to prove it: one /start is enough.
    expect(neighbour.messages().length).toBeGreaterThan(0);
    expect(neighbour.messages().some((message) => NOTICE.test(message.text ?? ""))).toBe(false);
  });
});

describe("incoming flood control in the ops group", () => {
  const OPS_LIMIT = 5;
  let ops: OpsStack;

  beforeAll(async () => {
    ops = await startOpsStack({ env: { USER_RATE_LIMIT: `${OPS_LIMIT}/10` } });
  });
  afterAll(async () => {
    await ops?.stop();
  });

  it("limits a plain, restricted or unlisted member posting there like anyone; an ops admin is not limited", async () => {
    const { group, ada, mel, ike, rex } = ops;
    // Commands they may not use: silence, but each one is an update that counts.
    for (const member of [mel, ike, rex])
      for (let index = 0; index < OPS_LIMIT; index += 1) await group.send(member, "/limits");
    for (let index = 0; index < OPS_LIMIT + 3; index += 1) await group.send(ada, "/limits");
    await ops.stack.tg.idle();
    const answers = group
      .unconsumed()
      .filter((event) => event.kind === "message" && /Daily payout limits/.test(event.message.text ?? ""));
    expect(answers).toHaveLength(OPS_LIMIT + 3);

    // Their next update, anywhere, is the first over the limit: the one notice.
    for (const member of [mel, ike, rex]) {
      await member.send("/start");
      expect((await member.nextMessage()).text, member.user.first_name).toMatch(NOTICE);
    }
    await ada.send("/start");
    expect((await ada.nextMessage()).text).not.toMatch(NOTICE);
  });
});
