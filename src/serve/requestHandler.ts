import type { IncomingMessage } from "node:http";
import { accessAnswer } from "./access.js";
import { errorAnswer, notFound, type Answer } from "./answer.js";
import type { Asset } from "./assets.js";
import type { DashboardPages } from "./dashboardPages.js";
import { isOwnPath, routeOf } from "./routes.js";

/** What a request is answered from. */
export interface Site {
  pages: DashboardPages;
  assets: ReadonlyMap<string, Asset>;
  /** The token every request must carry; none on loopback. */
  token: string | undefined;
}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/**
 * The answer to a request: GET and HEAD only, the access rules first (`accessAnswer`), then an
 * asset or a page of the routes (for the client at the request's address: see
 * `WarehouseQueue`), anything else 404. A page that fails rejects (see `failureAnswer`).
 */
export async function answerRequest(request: IncomingMessage, site: Site): Promise<Answer> {
  if (request.method !== "GET" && request.method !== "HEAD")
    return {
      status: 405,
      type: "text/plain; charset=utf-8",
      body: "only GET and HEAD\n",
      headers: { allow: "GET, HEAD" },
    };
  const url = new URL(request.url ?? "/", "http://dashboard");
  const refused = accessAnswer(request, url, site.token, isOwnPath);
  if (refused) return refused;
  const asset = /^\/assets\/([\w.-]+)$/.exec(url.pathname);
  if (asset) {
    const found = site.assets.get(asset[1]!);
    return found ? { type: found.type, body: found.body, headers: { "cache-control": "max-age=3600" } } : notFound();
  }
  const month = url.searchParams.get("month") ?? undefined;
  if (month !== undefined && !MONTH.test(month)) return errorAnswer(400, `bad month "${month}": use YYYY-MM`);
  const found = routeOf(url.pathname);
  return found ? found.route.answer(site.pages, request.socket.remoteAddress ?? "", found.parts, month) : notFound();
}
