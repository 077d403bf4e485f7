import type { Answer } from "./answer.js";
import type { Client, DashboardPages } from "./dashboardPages.js";

/** A page of the dashboard: its path, and its answer from the path's parts and the month asked for. */
interface Route {
  path: RegExp;
  answer(pages: DashboardPages, client: Client, parts: RegExpExecArray, month: string | undefined): Promise<Answer>;
}

const id = (parts: RegExpExecArray, i = 1) => Number(parts[i]);

/** The dashboard's pages (docs/dashboard.md); anything else is 404. */
export const ROUTES: readonly Route[] = [
  { path: /^\/$/, answer: (pages, client, _, month) => pages.overview(client, month) },
  { path: /^\/quality$/, answer: (pages, client) => pages.quality(client) },
  { path: /^\/receivables$/, answer: (pages, client) => pages.receivables(client) },
  { path: /^\/account\/(\d{1,15})$/, answer: (pages, client, parts, month) => pages.account(client, id(parts), month) },
  {
    path: /^\/account\/(\d{1,15})\/statement\.xlsx$/,
    answer: (pages, client, parts, month) => pages.workbook(client, id(parts), month),
  },
  {
    path: /^\/account\/(\d{1,15})\/statement\.pdf$/,
    answer: (pages, client, parts, month) => pages.statementPdf(client, id(parts), month),
  },
  {
    path: /^\/account\/(\d{1,15})\/invoice\.(pdf|xml)$/,
    answer: (pages, client, parts, month) => pages.issuedFile(client, id(parts), month, parts[2] as "pdf" | "xml"),
  },
  {
    path: /^\/(machine|cloudspace)\/(\d{1,15})$/,
    answer: (pages, client, parts, month) =>
      pages.entity(client, parts[1] as "machine" | "cloudspace", id(parts, 2), month),
  },
];

/** The route of `path`, with its parts, or undefined. */
export function routeOf(path: string): { route: Route; parts: RegExpExecArray } | undefined {
  for (const route of ROUTES) {
    const parts = route.path.exec(path);
    if (parts) return { route, parts };
  }
  return undefined;
}

/** Whether `path` is one of the dashboard's own pages (where a redirect may go). */
export const isOwnPath = (path: string): boolean => routeOf(path) !== undefined;
