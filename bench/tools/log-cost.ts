import { createLogger } from "#src/log/logger.js";
import { intOption } from "../lib/args.ts";
import { num, table } from "../lib/report.ts";

/**
 * What one log line costs the process that writes it, through the bot's own logger (the masking of secrets and
 * personal data included) into a destination that only counts: CPU per line, for the lines the bot writes most
 * (an info line with a few ids, one with a nested beneficiary, an error).
 *
 *   node --import tsx bench/tools/log-cost.ts [--lines 20000]
 */
const LINES = intOption("lines", "BENCH_LOG_LINES", 20_000);

let written = 0;
const destination = {
  write(line: string) {
    written += line.length;
  },
};
const logger = createLogger({ level: "info", pretty: false, destination: destination as never });

const shapes: Array<{ name: string; log: () => void }> = [
  {
    name: 'info, three ids ("payout quoted")',
    log: () => logger.info({ orderId: "63106-9235", corridor: "NG", takeover: false }, "payout quoted"),
  },
  {
    name: "info, a nested beneficiary (an account number masked)",
    log: () =>
      logger.info(
        {
          orderId: "63106-9235",
          beneficiary: { bankAccountNumber: "0123456789", bankName: "GTBANK PLC", bankCode: "000013" },
        },
        "payout recipient",
      ),
  },
  {
    name: "warn, an error with a cause",
    log: () =>
      logger.warn(
        { err: new Error("fetch failed", { cause: new Error("ECONNRESET") }), step: "quote" },
        "payout flow call failed",
      ),
  },
];

const rows: string[][] = [];
for (const shape of shapes) {
  for (let index = 0; index < 2_000; index++) shape.log();
  const cpuBefore = process.cpuUsage();
  for (let index = 0; index < LINES; index++) shape.log();
  const cpu = process.cpuUsage(cpuBefore);
  rows.push([shape.name, `${num((cpu.user + cpu.system) / LINES, 2)} µs`]);
}
console.log(table(["Line", "CPU per line"], rows));
console.log(
  `\n${LINES} lines of each shape; ${num(written / 1024 / 1024, 1)} MB written to a counting destination.`,
);
