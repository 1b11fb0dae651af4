import type { IncomingMessage, ServerResponse } from "node:http";
import { stringify } from "csv-stringify/sync";
import type { BotDeps } from "#src/bot/context.js";
import { MINIAPP_PATH, miniAppUrl } from "#src/bot/rules/miniapp-menu.js";
import { isSupportedLanguage, LANGUAGES } from "#src/i18n/index.js";
import type { UserRecord } from "#src/store/index.js";
import { merchantFor } from "./auth.ts";
import { createFromPage } from "./create.ts";
import { PAGE_FILES } from "./page/files.ts";
import { applyFilter, chart, MAX_LINKS, MAX_ROWS, parseFilter, periodOf, toRow, totals } from "./view.ts";

const API = `${MINIAPP_PATH}/api`;
const CSP =
  "default-src 'none'; script-src 'self' https://telegram.org; style-src 'self'; connect-src 'self'; " +
  "img-src 'self' data:; base-uri 'none'; form-action 'none'";

/**
 * The merchant Mini App over the bot's HTTP server: the page (from memory) and its API. Every API request proves
 * who sends it with Telegram init data and is checked against the merchant's approval there and then.
 */
export function miniAppRoutes(deps: BotDeps, botToken: string) {
  const served = deps.config.nodeEnv !== "production" || miniAppUrl(deps.config) !== undefined;
  return async (req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> => {
    if (!served || !path.startsWith(MINIAPP_PATH)) return false;
    const method = req.method ?? "GET";
    const file = PAGE_FILES.get(path === MINIAPP_PATH ? `${MINIAPP_PATH}/` : path);
    if (file && method === "GET") {
      res.writeHead(200, {
        "content-type": file.type,
        "content-security-policy": CSP,
        "x-content-type-options": "nosniff",
        "cache-control": "no-store",
      });
      res.end(file.body);
      return true;
    }
    if (!path.startsWith(`${API}/`)) return false;
    const merchant = await merchantFor(deps, botToken, req.headers.authorization);
    if (!merchant) {
      sendJson(res, 401, { error: "unauthorized" });
      return true;
    }
    await api(deps, merchant, req, res, path.slice(API.length), method);
    return true;
  };
}

async function api(
  deps: BotDeps,
  merchant: UserRecord,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  method: string,
): Promise<void> {
  const language = languageOf(merchant);
  const t = deps.translator.t(language);
  const locale = LANGUAGES.find((entry) => entry.code === language)?.intl ?? "en-NG";
  if (route === "/me" && method === "GET") {
    const names = (prefix: string, keys: string[]) =>
      Object.fromEntries(keys.map((key) => [key, t(`merchant:${prefix}.${key}`)]));
    return sendJson(res, 200, {
      language,
      strings: t("merchant:miniapp", { returnObjects: true }),
      statuses: names("status", ["active", "paid", "settled"]),
      speeds: names("speed", ["slow", "medium", "fast"]),
    });
  }
  if (route === "/links" && method === "POST") {
    const answer = await createFromPage(deps, merchant.id, req, t);
    return sendJson(res, answer.status, answer.body);
  }
  if ((route === "/links" || route === "/links.csv") && method === "GET") {
    const query = new URL(req.url ?? "/", "http://x").searchParams;
    const filter = parseFilter(query, Date.now());
    if (!filter) return sendJson(res, 400, { error: "bad filter" });
    const { links } = await deps.store.paymentLinks.listForMerchant(merchant.id, 0, MAX_LINKS);
    const shown = applyFilter(links, filter);
    const rows = shown.slice(0, MAX_ROWS).map((link) => toRow(link, t, locale));
    if (route === "/links.csv") return sendCsv(res, rows, t);
    return sendJson(res, 200, {
      period: periodOf(filter),
      rows,
      truncated: shown.length > rows.length,
      totals: totals(shown, locale),
      chart: chart(links, Date.now()),
      links: links.slice(0, MAX_ROWS).map((link) => ({ ref: link.ref, name: link.name })),
    });
  }
  sendJson(res, 404, { error: "not found" });
}

function languageOf(user: UserRecord) {
  const wanted = user.language ?? user.telegramLanguage?.slice(0, 3).replace(/-.*/, "");
  return isSupportedLanguage(wanted) ? wanted : "en";
}

/** Cells from outside (link names) never start with a formula sign, as in the statement export. */
function plainText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function sendCsv(res: ServerResponse, rows: ReturnType<typeof toRow>[], t: (key: string) => string): void {
  const header = ["date", "name", "status", "amount", "sats", "ref"].map((key) =>
    t(`merchant:miniapp.col_${key}`),
  );
  const body = stringify(
    [
      header,
      ...rows.map((row) =>
        [row.date, row.name, row.statusText, row.amount, row.sats, row.ref].map(plainText),
      ),
    ],
    { bom: true, record_delimiter: "windows" },
  );
  res.writeHead(200, {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": 'attachment; filename="payment-links.csv"',
    "cache-control": "no-store",
  });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(payload);
}
