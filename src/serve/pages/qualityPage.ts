import { describeImpossible } from "../../load/impossibleValues.js";
import type { AccountStatus, HourSpan } from "../../sync/warehouseStatus.js";
import type { AccountQuality, QualityData } from "../qualityData.js";
import { when, esc, page, table } from "./html.js";

const hoursOf = (spans: readonly HourSpan[]) => spans.reduce((n, s) => n + s.hours, 0);
const spanText = (s: HourSpan) =>
  s.hours === 1 ? when(s.fromEpoch) : `${when(s.fromEpoch)} to ${when(s.toEpoch)} (${s.hours} h)`;
const LISTED = 20;

/** A list of at most LISTED items, saying how many more there are. */
function list(items: readonly string[]): string {
  if (items.length === 0) return "";
  const more = items.length > LISTED ? `<li class="note">and ${items.length - LISTED} more</li>` : "";
  return `<ul class="compact">${items
    .slice(0, LISTED)
    .map((i) => `<li>${esc(i)}</li>`)
    .join("")}${more}</ul>`;
}

/** What an account's counts are made of: the lists that are not empty. */
function findings(a: AccountQuality): (readonly [string, string[]])[] {
  const s = a.status;
  const parts = [
    ["Missing hours", s.missing.map(spanText)],
    ["Lost at source (never written within the platform's retention)", s.lost.map(spanText)],
    ["Of which accepted (status --accept-lost)", s.acceptedLost.map(spanText)],
    ["Dated later than the current hour (not counted)", s.future.map(spanText)],
    ["Arrived late", s.late.map(spanText)],
    ["Rewritten by the platform", s.rewritten.map(spanText)],
    ["Bad files", a.badFiles.map((f) => `${f.file}: ${f.reason}`)],
    ["Impossible values (counted as 0 when billed with --skip-bad)", a.impossibleValues.map(describeImpossible)],
  ] as const;
  return parts.filter(([, items]) => items.length > 0);
}

/** One account's section: what each of its counts is made of, and the hours not yet synced. */
function accountSection(a: AccountQuality): string {
  const s = a.status;
  const found = findings(a);
  return `<section class="account-quality" id="quality-${s.accountId}"><h2>Account ${s.accountId}${s.name ? ` <small>${esc(s.name)}</small>` : ""}</h2>
${found.length === 0 ? '<p class="ok">Nothing to report.</p>' : found.map(([title, items]) => `<h3>${esc(title)}</h3>${list(items)}`).join("\n")}
${s.notYetSynced ? `<p class="note">Not yet synced (not missing): ${esc(spanText(s.notYetSynced))}.</p>` : ""}</section>`;
}

/** The accounts with nothing to report, in one line (a section each made a long page of "nothing"). */
function cleanAccounts(clean: readonly AccountQuality[]): string {
  if (clean.length === 0) return "";
  const ids = clean.map((a) => `<span id="quality-${a.status.accountId}">${a.status.accountId}</span>`).join(", ");
  return `<p class="ok" id="quality-clean">Nothing to report for account${clean.length === 1 ? "" : "s"} ${ids}: no missing, lost, late or rewritten hours, bad files or impossible values, and every hour synced.</p>`;
}

/** The data-quality page: per account, missing, late and rewritten hours, bad files and impossible values. */
export function qualityPage(data: QualityData): string {
  const summary = table(
    "quality",
    [
      {
        heading: "Account",
        numeric: true,
        cell: (a) => ({
          html: `<a href="#quality-${a.status.accountId}">${a.status.accountId}</a>`,
          sort: a.status.accountId,
        }),
      },
      { heading: "Name", cell: (a) => ({ html: esc(a.status.name ?? "") }) },
      {
        heading: "Complete until",
        note: "UTC",
        cell: (a) => ({
          html: a.status.completeUntilEpoch === null ? "—" : esc(when(a.status.completeUntilEpoch)),
          sort: a.status.completeUntilEpoch ?? 0,
        }),
      },
      { heading: "Missing", note: "hours", numeric: true, cell: (a) => count(hoursOf(a.status.missing)) },
      { heading: "Lost", note: "hours", numeric: true, cell: (a) => lostCell(a.status) },
      { heading: "Late", note: "hours", numeric: true, cell: (a) => count(hoursOf(a.status.late), "warn") },
      { heading: "Rewritten", note: "hours", numeric: true, cell: (a) => count(hoursOf(a.status.rewritten), "warn") },
      { heading: "Bad files", numeric: true, cell: (a) => count(a.badFiles.length) },
      { heading: "Impossible values", numeric: true, cell: (a) => count(a.impossibleValues.length) },
    ],
    data.accounts,
  );
  const other =
    data.otherBadFiles.length > 0
      ? `<h2>Bad files of no account</h2>${list(data.otherBadFiles.map((f) => `${f.file}: ${f.reason}`))}`
      : "";
  const body = `
<h1>Data quality</h1>
<p class="lead">What the warehouse lacks or holds that is not billed, per account (as <code>status</code> and <code>check --db</code> report it). Missing hours lie between the first and last hour held; hours after the last complete hour are not yet synced.</p>
${summary}
${cleanAccounts(data.accounts.filter(isClean))}
${data.accounts
  .filter((a) => !isClean(a))
  .map(accountSection)
  .join("\n")}
${other}`;
  return page("Data quality", body);
}

const isClean = (a: AccountQuality): boolean => findings(a).length === 0 && a.status.notYetSynced === null;
const count = (n: number, level: "bad" | "warn" = "bad") => ({
  html: `<span class="${n > 0 ? level : "ok"}">${n}</span>`,
  sort: n,
});

/** Hours lost at source: red while one is not accepted (`status` exits 7), amber when every one is. */
export function lostCell(s: Pick<AccountStatus, "lost" | "acceptedLost">): { html: string; sort: number } {
  const n = hoursOf(s.lost);
  return count(n, n > hoursOf(s.acceptedLost) ? "bad" : "warn");
}
