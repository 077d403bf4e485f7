import { createServer, type Server } from "node:http";
import { UsageError } from "../base/errors.js";
import { checkAccess } from "./access.js";
import { failureAnswer, send } from "./answer.js";
import { loadAssets } from "./assets.js";
import { DashboardPages } from "./dashboardPages.js";
import type { DashboardSettings } from "./dashboardSettings.js";
import { answerRequest, type Site } from "./requestHandler.js";
import { startUp } from "./startUp.js";
import { WarehouseQueue } from "./warehouseQueue.js";

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
  const queue = new WarehouseQueue(options.db, options.waitSeconds);
  const pages = new DashboardPages(options.db, options, queue);
  const site: Site = { pages, assets: await loadAssets(), token: options.token };
  const server = createServer((request, response) => {
    answerRequest(request, site)
      .catch((error: unknown) => failureAnswer(error, options.onError))
      .then((answer) => send(request, response, answer, options.onError))
      .catch(() => response.destroy()); // never reached (send does not throw): no request ends the server
  });
  const port = await listen(server, host, options.port ?? 8080);
  let closed = false;
  const ready = startUp(pages, queue, options.precompute !== false, () => closed).catch(() => undefined);
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/`,
    ready,
    close: async () => {
      closed = true;
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await queue.idle();
    },
  };
}

/** Starts `server` listening; resolves to its port. An address in use or not allowed is a UsageError (SERVE_LISTEN). */
async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL"
          ? new UsageError(
              `cannot listen on ${host}:${port}: ${error.code === "EADDRINUSE" ? "the port is in use (pick another with the port option)" : error.message}`,
              { code: "SERVE_LISTEN", cause: error },
            )
          : error,
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return typeof address === "object" && address ? address.port : port;
}
