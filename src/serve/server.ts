import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CloudunitsError, UsageError, WarehouseBusyError } from "../base/errors.js";
import { renderInvoicePdf } from "../export/pdf/invoicePdf.js";
import { draftDocument } from "../export/pdf/writeStatements.js";
import { accountFileName, writeBillingXlsx } from "../export/writeBillingXlsx.js";
import { openWarehouse } from "../store/openWarehouse.js";
import type { Warehouse } from "../store/types.js";
import { warehouseStatus } from "../sync/warehouseStatus.js";
import { checkAccess, hostIsLocal, requestToken, TOKEN_COOKIE, tokenMatches } from "./access.js";
import { accountData, type AccountData } from "./accountData.js";
import { loadAssets } from "./assets.js";
import type { DashboardSettings } from "./dashboardSettings.js";
import { entityData } from "./entityData.js";
import { NotFoundError } from "./notFound.js";
import { overviewData } from "./overviewData.js";
import { accountPage } from "./pages/accountPage.js";
import { entityPage } from "./pages/entityPage.js";
import { esc, page } from "./pages/html.js";
import { overviewPage } from "./pages/overviewPage.js";
import { qualityPage } from "./pages/qualityPage.js";
import { qualityData } from "./qualityData.js";
import { ResultCache } from "./resultCache.js";
import { warehouseVersion } from "./warehouseVersion.js";

/** Options of {@link serveDashboard}. */
export interface DashboardOptions extends DashboardSettings {
  /** The warehouse file (made by `ingest` or `sync`); opened read-only for each computation, never written. */
  db: string;
  /** Where to listen; default 127.0.0.1. Another address than loopback needs `token`. */
  host?: string;
  /** The port; default 8080; 0: any free port (see `Dashboard.url`). */
  port?: number;
  /** A secret every request must carry (Bearer header, or the cookie set by opening `/?token=...`). Required off loopback. */
  token?: string;
  /** While a writer holds the warehouse, wait up to this many seconds for its commit (default 60), then answer 503. */
  waitSeconds?: number;
  /** Told about every request that failed with an internal error (the library never prints). */
  onError?: (error: unknown) => void;
  /**
   * After the latest month's overview (always computed at start), compute in the background the
   * data quality page and the latest month's page of each account (at most 16), one at a time,
   * each request going first. Default true.
   */
  precompute?: boolean;
}

/** A running dashboard. */
export interface Dashboard {
  /** Its address, e.g. `http://127.0.0.1:8080/`. */
  url: string;
  /** Resolves once the pages computed at start (see `precompute`) are, or have failed. */
  ready: Promise<void>;
  /** Stops listening, stops computing pages in the background, and waits for the computation under way. */
  close(): Promise<void>;
}

/** A response the routes make. */
interface Answer {
  status?: number;
  type: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

const HTML = "text/html; charset=utf-8";
/** Account pages kept (and computed at start): the most a dashboard keeps. */
const ACCOUNT_PAGES = 16;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The headers of every answer: nothing cached by a proxy, no framing, no sniffing, scripts only from the dashboard. */
const SAFE_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

/**
 * Serves the read-only dashboard of a warehouse (docs/dashboard.md): the overview, the
 * account, machine and cloud space pages, data quality, and each account's statement. Every
 * figure comes from the library's billing, stats and status calls; results are kept per
 * page until the warehouse changes. Listens on 127.0.0.1 unless told otherwise, and off
 * loopback only with a token (UsageError SERVE_TOKEN).
 */
export async function serveDashboard(options: DashboardOptions): Promise<Dashboard> {
  const host = options.host ?? "127.0.0.1";
  checkAccess(host, options.token);
  const assets = await loadAssets();
  const cache = new ResultCache<Answer>();
  const accounts = new ResultCache<AccountData>(2 * ACCOUNT_PAGES); // the latest month's under two keys each
  /** The account page of each account's data kept (its tables are long: rendered once). */
  const rendered = new WeakMap<AccountData, Answer>();
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs `work` on the warehouse, one at a time, opened read-only for it and closed after (a sync can write between two). */
  const withStore = <T>(work: (store: Warehouse) => Promise<T>): Promise<T> => {
    const run = queue.then(async () => {
      const store = await openWarehouse({ db: options.db }, { waitSeconds: options.waitSeconds });
      try {
        return await work(store);
      } finally {
        store.close();
      }
    });
    queue = run.catch(() => undefined);
    return run;
  };
  /** Waits until no computation is under way or waiting. */
  const idle = async (): Promise<void> => {
    for (let q = queue; ; q = queue) {
      await q;
      if (q === queue) return;
    }
  };
  const cached = async (key: string, compute: (store: Warehouse, version: string) => Promise<Answer>): Promise<Answer> => {
    const version = await warehouseVersion(options.db);
    const { value, stale } = cache.get(key, version, () => withStore((s) => compute(s, version)));
    return stale ? staleAnswer(await value) : value;
  };
  /** An account's month; `fresh`: of the warehouse as it is now (a download), else possibly the one before a sync while it is recomputed. */
  const account = async (id: number, month: string | undefined, fresh = false): Promise<{ data: AccountData; stale: boolean }> => {
    const version = await warehouseVersion(options.db);
    const { value, stale } = accounts.get(`${id}|${month ?? ""}`, version, () => withStore(async (s) => {
      const data = await accountData(s.connection, options.db, s.load, options, id, month);
      if (month === undefined) accounts.put(`${id}|${data.month.month}`, version, data); // the same page as /account/ID?month=
      return data;
    }), fresh);
    return { data: await value, stale };
  };
  const html = (body: string): Answer => ({ type: HTML, body });
  /** The overview of a month (default: the latest), kept under the month it shows too. */
  const overview = (month: string | undefined): Promise<Answer> => cached(`overview|${month ?? ""}`, async (s, version) => {
    const data = await overviewData(s.connection, options.db, s.load, options, month);
    const answer = html(overviewPage(data));
    if (month === undefined) cache.put(`overview|${data.month.month}`, version, answer);
    return answer;
  });
  /** The account page (its tables are long: rendered once per data). */
  const accountPageOf = async (id: number, month: string | undefined): Promise<Answer> => {
    const { data, stale } = await account(id, month);
    const answer = rendered.get(data) ?? html(accountPage(data, { pdf: options.statement !== undefined }));
    rendered.set(data, answer);
    return stale ? staleAnswer(answer) : answer;
  };
  const quality = () => cached("quality", async (s) => html(qualityPage(await qualityData(s.connection, options.db, s.load, options.names))));

  const routes: { path: RegExp; answer: (m: RegExpExecArray, month: string | undefined) => Promise<Answer> }[] = [
    { path: /^\/$/, answer: (_, month) => overview(month) },
    { path: /^\/quality$/, answer: () => quality() },
    { path: /^\/account\/(\d{1,15})$/, answer: (m, month) => accountPageOf(Number(m[1]), month) },
    {
      path: /^\/account\/(\d{1,15})\/statement\.xlsx$/,
      answer: async (m, month) => {
        const { data } = await account(Number(m[1]), month, true);
        return cache.get(`xlsx|${data.accountId}|${data.month.month}`, await warehouseVersion(options.db), async () => ({
          type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
          body: await workbookOf(data),
          headers: { "content-disposition": `attachment; filename="${downloadName(data, "xlsx")}"` },
        }), true).value;
      },
    },
    {
      path: /^\/account\/(\d{1,15})\/statement\.pdf$/,
      answer: async (m, month) => {
        const { data } = await account(Number(m[1]), month, true);
        const config = options.statement;
        if (!config || !data.invoice) throw new NotFoundError("a PDF statement needs the dashboard started with --prices FILE and --statement FILE");
        // a draft: the dashboard never issues an invoice
        return { type: "application/pdf", body: await renderInvoicePdf(draftDocument(data.report, data.accountId, config)), headers: { "content-disposition": `attachment; filename="${downloadName(data, "pdf")}"` } };
      },
    },
    {
      path: /^\/(machine|cloudspace)\/(\d{1,15})$/,
      answer: (m, month) => cached(`${m[1]}|${m[2]}|${month}`, async (s) => html(entityPage(await entityData(s.connection, m[1] as "machine" | "cloudspace", Number(m[2]), month, options.names)))),
    },
  ];

  const handle = async (request: IncomingMessage): Promise<Answer> => {
    if (request.method !== "GET" && request.method !== "HEAD") return { status: 405, type: "text/plain; charset=utf-8", body: "only GET and HEAD\n", headers: { allow: "GET, HEAD" } };
    const url = new URL(request.url ?? "/", "http://dashboard");
    if (options.token !== undefined) {
      const given = url.searchParams.get("token");
      if (given !== null && tokenMatches(options.token, given)) {
        url.searchParams.delete("token");
        return { status: 303, type: "text/plain; charset=utf-8", body: "", headers: {
          location: `${url.pathname}${url.search}`, "set-cookie": `${TOKEN_COOKIE}=${encodeURIComponent(given)}; HttpOnly; SameSite=Strict; Path=/`,
        } };
      }
      if (!tokenMatches(options.token, requestToken(request.headers))) return { status: 401, type: HTML, body: errorPage(401, "This dashboard needs its token: open it once as /?token=TOKEN, or send Authorization: Bearer TOKEN.") };
    } else if (!hostIsLocal(request.headers.host)) {
      return { status: 403, type: HTML, body: errorPage(403, "This dashboard answers only requests addressed to this machine (127.0.0.1 or localhost).") };
    }
    const asset = /^\/assets\/([\w.-]+)$/.exec(url.pathname);
    if (asset) {
      const found = assets.get(asset[1]!);
      return found ? { type: found.type, body: found.body, headers: { "cache-control": "max-age=3600" } } : notFound();
    }
    const month = url.searchParams.get("month") ?? undefined;
    if (month !== undefined && !MONTH.test(month)) return { status: 400, type: HTML, body: errorPage(400, `bad month "${month}": use YYYY-MM`) };
    for (const route of routes) {
      const m = route.path.exec(url.pathname);
      if (m) return route.answer(m, month);
    }
    return notFound();
  };

  const server = createServer((request, response) => {
    handle(request).then(
      (answer) => send(request, response, answer),
      (error: unknown) => send(request, response, failure(error, options.onError)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL"
      ? new UsageError(`cannot listen on ${host}:${options.port ?? 8080}: ${error.code === "EADDRINUSE" ? "the port is in use (pick another with --port)" : error.message}`, { code: "SERVE_LISTEN", cause: error })
      : error));
    server.listen(options.port ?? 8080, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port ?? 8080;
  const shown = host.includes(":") ? `[${host}]` : host;
  let closed = false;
  /** The pages computed at start: the latest overview, then (`precompute`) data quality and the latest month of each account, each after the requests waiting. */
  const startUp = async (): Promise<void> => {
    await overview(undefined);
    if (options.precompute === false) return;
    await idle();
    if (closed) return;
    await quality();
    const status = await withStore((s) => warehouseStatus(s.connection, options.db));
    for (const a of status.accounts.filter((a) => a.firstHourEpoch !== null).slice(0, ACCOUNT_PAGES)) {
      await idle();
      if (closed) return;
      await accountPageOf(a.accountId, undefined);
    }
  };
  const ready = startUp().catch(() => undefined);
  return {
    url: `http://${shown}:${port}/`,
    ready,
    close: async () => {
      closed = true;
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await idle();
    },
  };
}

/** The file name of a download: `account-7-acme-corp-2026-10.xlsx`. */
function downloadName(data: AccountData, extension: string): string {
  return accountFileName(data.accountId, data.name).replace(/\.xlsx$/, `-${data.month.month}.${extension}`);
}

/** The account's statement workbook (`billing --account-id --format xlsx`), as bytes. */
async function workbookOf(data: AccountData): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "cloudunits-serve-"));
  try {
    const file = join(dir, "statement.xlsx");
    await writeBillingXlsx(data.report, undefined, file);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A page of the warehouse as it was before its last change, saying so (its figures are being computed again). */
function staleAnswer(answer: Answer): Answer {
  if (answer.type !== HTML || typeof answer.body !== "string") return answer;
  const note = '<p class="stale" id="stale">The warehouse changed since these figures were computed (a sync wrote to it): they are being computed again. Reload in a moment for the current ones.</p>';
  return { ...answer, body: answer.body.replace("<main>\n", `<main>\n${note}\n`) };
}

const notFound = (): Answer => ({ status: 404, type: HTML, body: errorPage(404, "No such page.") });

/** A short page for an error status. */
function errorPage(status: number, message: string): string {
  return page(`${status}`, `<h1>${status}</h1><p>${esc(message)}</p><p><a href="/">Overview</a></p>`);
}

/** The answer to a failed request: 404 for an unknown id, 400 for a bad request, 503 while the warehouse stays busy, else 500. */
function failure(error: unknown, onError: DashboardOptions["onError"]): Answer {
  if (error instanceof NotFoundError) return { status: 404, type: HTML, body: errorPage(404, error.message) };
  if (error instanceof WarehouseBusyError) return { status: 503, type: HTML, body: errorPage(503, error.message), headers: { "retry-after": "10" } };
  if (error instanceof UsageError) return { status: 400, type: HTML, body: errorPage(400, error.message) };
  onError?.(error);
  const code = error instanceof CloudunitsError ? ` [${error.code}]` : "";
  return { status: 500, type: HTML, body: errorPage(500, `The figures could not be computed${code}: ${error instanceof Error ? error.message : String(error)}`) };
}

function send(request: IncomingMessage, response: ServerResponse, answer: Answer): void {
  const body = typeof answer.body === "string" ? Buffer.from(answer.body) : answer.body;
  response.writeHead(answer.status ?? 200, { ...SAFE_HEADERS, "content-type": answer.type, "content-length": String(body.length), ...answer.headers });
  response.end(request.method === "HEAD" ? undefined : body);
}

