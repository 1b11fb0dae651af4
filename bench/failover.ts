import { Api } from "grammy";
import { createTranslator } from "#src/i18n/index.js";
import { createLogger } from "#src/log/logger.js";
import { renderStatusCard } from "#src/orders/index.js";
import { startTelegramEmulator } from "#src/standins/local/telegram-emulator/index.js";
import { createStore, keys } from "#src/store/index.js";
import { intOption } from "./lib/args.ts";
import { spawnChild } from "./lib/child.ts";
import { startBenchRedis } from "./lib/redis.ts";
import { machineLine, num, progress, summarize, table, writeResults } from "./lib/report.ts";
import { startSandboxProcess } from "./lib/sandbox-process.ts";
import { type BotProcess, startBotProcess, webhookDeploymentEnv } from "./scale/bot-process.ts";
import { journey } from "./scale/journey.ts";
import { startRoundRobinProxy } from "./scale/proxy.ts";
import { orderRecord, syntheticOrders } from "./webhooks/events.ts";
import type { SendPlan, SendReport } from "./webhooks/sender-child.ts";

/**
 * Losing processes under load: two `web` processes behind a round-robin proxy and one `worker`, on one Redis. While
 * a burst of signed payout webhooks (two per confirmed order, each order's status card already on the user's screen)
 * and N whole payout journeys run, one web process and the worker are SIGKILLed; replacements start at once. Then:
 * every order's card must end "Completed" with exactly two notifications (none lost, none twice), every journey
 * must complete, and the report gives how long delivery stalled after the kill and after the new worker was up.
 *
 *   npm run bench:failover -- [--events 10000] [--rate 500] [--users 200] [--kill-after-ms 5000]
 */
const EVENTS = intOption("events", "BENCH_EVENTS", 10_000);
const RATE = intOption("rate", "BENCH_RATE", 500);
const USERS = intOption("users", "BENCH_USERS", 200);
const KILL_AFTER_MS = intOption("kill-after-ms", "BENCH_KILL_AFTER_MS", 5_000);
/** The card, then one notification per stage: payment received, completed. */
const MESSAGES_PER_ORDER = 3;

async function main(): Promise<void> {
  progress(`failover: ${EVENTS} webhooks at ${RATE}/s and ${USERS} journeys; kill 1 web + the worker`);
  const bench = await startBenchRedis();
  const sandboxProcess = await startSandboxProcess();
  const sandbox = sandboxProcess.address;
  const tg = await startTelegramEmulator({
    defaultTimeoutMs: 180_000,
    callbackAnswerTimeoutMs: 60_000,
    callLogLimit: EVENTS * 4 + USERS * 40 + 20_000,
  });
  const proxy = await startRoundRobinProxy();
  const sender = spawnChild(new URL("./webhooks/sender-child.ts", import.meta.url).pathname);
  const env = webhookDeploymentEnv({
    telegram: tg,
    sandbox,
    publicUrl: proxy.url,
    redisUrl: bench.server.url,
  });
  const processes: BotProcess[] = [];
  try {
    // Confirmed orders with their status cards on screen, as the bot leaves them at Confirm.
    const orders = syntheticOrders(Math.floor(EVENTS / 2), 60_000_000, "failover");
    progress(`creating ${orders.length} confirmed orders with their status cards`);
    const store = createStore(bench.redis);
    const t = (await createTranslator({ logger: createLogger({ level: "silent", pretty: false }) })).t("en");
    const setupApi = new Api(tg.token, { apiRoot: tg.apiRoot });
    const now = Date.now();
    for (let i = 0; i < orders.length; i += 50) {
      await Promise.all(
        orders.slice(i, i + 50).map(async (synthetic) => {
          tg.user({ id: synthetic.userId, first_name: "Ada", started: true });
          await store.users.touch({ id: synthetic.userId, firstName: "Ada", telegramLanguage: "en" });
          const order = await store.orders.create(orderRecord(synthetic, now));
          const card = renderStatusCard(order, t, "en-NG");
          const sent = await setupApi.sendMessage(order.chatId, card.text, { parse_mode: "HTML" });
          await store.orders.annotate(order.orderId, {
            statusMessageId: sent.message_id,
            confirmedAt: new Date().toISOString(),
            // Delivered, as the bot records it after sending the card (else the recovery sweep would take it up).
            deliveredAt: new Date().toISOString(),
          });
        }),
      );
    }

    const worker = await startBotProcess({ role: "worker", env });
    const webs = [await startBotProcess({ role: "web", env }), await startBotProcess({ role: "web", env })];
    processes.push(worker, ...webs);
    proxy.setUpstreams(webs.map((web) => web.port));
    progress("2 web + 1 worker started");

    // Delivery timeline: notifications sent to the synthetic orders' chats, sampled every 100 ms.
    const orderChats = new Set(orders.map((order) => order.userId));
    const delivered = () =>
      tg.callsTo("sendMessage").filter((call) => orderChats.has(Number(call.params.chat_id))).length -
      orders.length;
    const timeline: Array<{ at: number; delivered: number }> = [];
    const sampler = setInterval(() => timeline.push({ at: performance.now(), delivered: delivered() }), 100);

    const started = performance.now();
    const plan: SendPlan = {
      url: `${proxy.url}/webhooks/payout`,
      secret: sandbox.webhookSecret,
      run: "failover",
      orders,
      ratePerSecond: RATE,
      connections: 64,
      window: 50,
    };
    const sending = sender.request<SendReport>("send", plan);
    const journeys = Promise.all(Array.from({ length: USERS }, (_, index) => journey(tg, 70_000 + index)));

    await new Promise((resolve) => setTimeout(resolve, KILL_AFTER_MS));
    const killedAt = performance.now();
    const [victim, survivor] = webs;
    victim?.kill();
    worker.kill();
    proxy.setUpstreams(survivor ? [survivor.port] : []);
    progress(`killed web ${victim?.pid} and worker ${worker.pid} (SIGKILL); starting replacements`);
    const [newWorker, newWeb] = await Promise.all([
      startBotProcess({ role: "worker", env }),
      startBotProcess({ role: "web", env }),
    ]);
    const replacedAt = performance.now();
    processes.push(newWorker, newWeb);
    proxy.setUpstreams([survivor?.port ?? 0, newWeb.port].filter(Boolean));
    progress(`replacements up after ${num((replacedAt - killedAt) / 1000, 1)} s`);

    const report = await sending;
    const journeyResults = await journeys;
    // Deliveries retried with backoff may land late: wait until every order is shown complete, or until nothing
    // has moved for 20 s (3 min at most). What is missing then is lost.
    const tally = () => {
      const missing: number[] = [];
      let duplicated = 0;
      for (const synthetic of orders) {
        const messages = tg.user({ id: synthetic.userId, first_name: "Ada" }).messages();
        if (!messages[0]?.text?.includes("Completed") || messages.length < MESSAGES_PER_ORDER)
          missing.push(synthetic.index);
        if (messages.length > MESSAGES_PER_ORDER) duplicated += 1;
      }
      return { missing, duplicated };
    };
    const deadline = performance.now() + 180_000;
    let lastCount = -1;
    let lastMove = performance.now();
    let settledAt = performance.now();
    for (;;) {
      const count = delivered();
      if (count !== lastCount) {
        lastCount = count;
        lastMove = performance.now();
      }
      if (count >= orders.length * (MESSAGES_PER_ORDER - 1) && tally().missing.length === 0) break;
      if (performance.now() - lastMove > 20_000 || performance.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      settledAt = performance.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    clearInterval(sampler);
    const finishedAt = performance.now();
    const { missing, duplicated } = tally();
    const lost = missing.length;
    // What the bot's own records say of the orders whose notifications never came (diagnosis).
    const lostDetail = await Promise.all(
      missing.slice(0, 5).map(async (index) => {
        const synthetic = orders[index];
        const order = synthetic ? await store.orders.get(synthetic.orderId) : undefined;
        const outbox = synthetic ? await bench.redis.llen(`events:outbox:${synthetic.orderId}`) : 0;
        const cursor = synthetic ? await bench.redis.get(`events:outbox:${synthetic.orderId}:cursor`) : null;
        return `order ${synthetic?.orderId}: stage ${order?.stage}, outbox ${outbox}, cursor ${cursor}`;
      }),
    );
    const completedJourneys = journeyResults.filter((result) => result.ok);
    // The count most journeys ended with (the first journey's could itself be one the kill touched).
    const counts = new Map<number, number>();
    for (const { messages } of completedJourneys) counts.set(messages, (counts.get(messages) ?? 0) + 1);
    const reference = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
    const journeyMismatch = completedJourneys.filter((result) => result.messages !== reference).length;
    const countsLine = [...counts]
      .sort((a, b) => a[0] - b[0])
      .map(([messages, journeys]) => `${journeys} × ${messages}`)
      .join(", ");
    const quotes = await fetch(`${sandbox.baseUrl}/order/all`, { headers: { "X-API-KEY": sandbox.apiKey } })
      .then((response) => response.json() as Promise<{ data?: unknown[] }>)
      .then((body) => body.data?.length ?? 0);

    // Delivery stalls: the longest time without a new notification after the kill, and the time from the new
    // worker being up to the first notification it (or anyone) delivered.
    const afterKill = timeline.filter((sample) => sample.at >= killedAt);
    let longestStallMs = 0;
    let lastChange = killedAt;
    let lastValue = afterKill[0]?.delivered ?? 0;
    for (const sample of afterKill) {
      if (sample.delivered !== lastValue) {
        longestStallMs = Math.max(longestStallMs, sample.at - lastChange);
        lastChange = sample.at;
        lastValue = sample.delivered;
      }
    }
    const atReplace = timeline.find((sample) => sample.at >= replacedAt)?.delivered ?? 0;
    const resumed = timeline.find((sample) => sample.at >= replacedAt && sample.delivered > atReplace);
    const resumeMs = resumed ? resumed.at - replacedAt : Number.NaN;
    const errors = processes.map((bot) => bot.errors());

    const rows: Array<[string, string | number]> = [
      ["webhook events posted", `${report.sent} (${JSON.stringify(report.statuses)})`],
      [
        "orders completed with exactly 2 notifications",
        `${orders.length - lost - duplicated}/${orders.length}`,
      ],
      ["orders with a notification lost", lost],
      ["orders with a notification twice", duplicated],
      [
        "notifications in flight at the kill, not sent again",
        processes.reduce((total, bot) => total + bot.notRepeated(), 0),
      ],
      ["journeys completed", `${completedJourneys.length}/${USERS}`],
      ["journeys with another message count (journeys × messages)", `${journeyMismatch} (${countsLine})`],
      [
        "journeys whose status card was sent twice (a kill between the send and its record)",
        completedJourneys.filter((result) => result.statusCards > 1).length,
      ],
      ["quotes at the payout API (one per journey)", `${quotes}/${USERS}`],
      ["replacements started after the kill", `${num((replacedAt - killedAt) / 1000, 1)} s`],
      [
        "first delivery after the new worker was up",
        Number.isNaN(resumeMs) ? "none" : `${num(resumeMs / 1000, 2)} s`,
      ],
      ["longest delivery stall after the kill", `${num(longestStallMs / 1000, 2)} s`],
      [
        "journey p50 / p99",
        (() => {
          const s = summarize(completedJourneys.map((result) => result.ms));
          return `${num(s.p50 / 1000, 1)} s / ${num(s.p99 / 1000, 1)} s`;
        })(),
      ],
      ["last notification after the burst began", `${num((settledAt - started) / 1000, 1)} s`],
      ["wall time", `${num((finishedAt - started) / 1000, 1)} s`],
      ["error log lines (all processes)", errors.reduce((total, entry) => total + entry.count, 0)],
    ];
    const failures = await Promise.all(
      journeyResults.flatMap((result, index) => {
        if (result.ok) return [];
        const chat = String(70_000 + index);
        return [
          (async () => {
            const queued = await bench.redis.llen(keys.updateQueue(chat));
            const lease = await bench.redis.get(keys.updateLease(chat));
            const atTelegram = tg.pendingUpdates().filter((update) => {
              const from = update.message?.chat.id ?? update.callback_query?.from.id;
              return String(from) === chat;
            }).length;
            const calls = tg
              .calls()
              .filter((call) => String(call.params.chat_id ?? "") === chat)
              .slice(-4)
              .map((call) => `${call.method}@${call.at}`)
              .join(", ");
            return `${result.error ?? "failed"} [inbox: ${queued} queued, lease ${lease ?? "none"}; ${atTelegram} undelivered at Telegram; last calls: ${calls}]`;
          })(),
        ];
      }),
    );
    process.stdout.write(
      [
        "## Losing a web process and the worker under load",
        "",
        machineLine(),
        "",
        table(["", "measured"], rows),
        "",
        ...failures.slice(0, 5),
        ...lostDetail,
        ...errors.flatMap((entry) => entry.samples).slice(0, 5),
        "",
      ].join("\n"),
    );
    writeResults("failover", {
      machine: machineLine(),
      events: EVENTS,
      rate: RATE,
      users: USERS,
      rows: Object.fromEntries(rows),
    });
  } finally {
    await Promise.all(processes.map((bot) => bot.stop()));
    await sender.stop();
    await proxy.close();
    await tg.close();
    await sandboxProcess.stop();
    await bench.stop();
  }
}

await main();
