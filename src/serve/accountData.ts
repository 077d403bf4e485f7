import { bill } from "../billEntry/bill.js";
import type { BillingReport } from "../billing/billingReport.js";
import type { Invoice } from "../billing/invoice.js";
import type { TaxLine } from "../invoices/document/invoiceDocument.js";
import { taxOf } from "../invoices/document/statementConfig.js";
import { emptyAccountLine, type BillingLine, type Quantities } from "../billing/lines.js";
import { draftDocument } from "../invoices/document/draftDocument.js";
import { readRegister } from "../invoices/register/readRegister.js";
import { remainderOf } from "../invoices/document/partialCreditNote.js";
import { amountDue } from "../invoices/document/contractLines.js";
import { sumOf } from "../invoices/document/documentTaxes.js";
import type { Warehouse } from "../store/types.js";
import type { WarehouseStatus } from "../sync/warehouseStatus.js";
import { HOUR_SECONDS } from "../sync/syncChunks.js";
import { clockNow } from "../base/clock.js";
import type { DashboardSettings } from "./dashboardSettings.js";
import { chosenMonth, monthsOf, type MonthChoice } from "./months.js";
import { notInWarehouse } from "./notFound.js";

/** One row of the account page's tables: a cloud space, a machine or a cloud space's gateway. */
export interface AccountRow {
  level: "cloudspace" | "machine" | "gateway";
  cloudspaceId: number;
  /** The machine's id; null for a cloud space or a gateway. */
  machineId: number | null;
  name: string;
  sampleHours: number;
  /** Own units (NU of a machine or gateway: its own external NICs'). */
  quantities: Quantities;
  /** Showback CU: the account's CU allocated hour by hour (adds up to the account's CU). */
  cuAllocated: number;
  /** Its share of the account's amount due (showback, adds up to the cent); absent without a price list. */
  cost?: string;
}

/**
 * The totals of the account's invoice of the month where its taxes are known: those of the issued
 * invoice in force (the register's), else the draft's of the dashboard's statement config.
 */
export interface InvoiceTotals {
  /** Σ of the lines, before tax. */
  net: string;
  taxes: TaxLine[];
  tax: string;
  /** net + tax: the amount due (less prepaid credit an issued invoice consumed). */
  gross: string;
  /** Σ of the document's own lines when a contract's lines (discounts, a shortfall) make its net differ from them. */
  linesNet?: string;
  /** The currency of these figures: the issued invoice's (which may not be the dashboard's price list's), or the draft's. */
  currency: string;
  /** The issued invoice these totals are of, with the names of its files as issued; absent on a draft. */
  issued?: {
    number: string;
    issueDate: string;
    files: string[];
    /** On an invoice of a customer of several accounts: the customer, its accounts, and this account's subtotal (its section's net). */
    customer?: { id: string; accountIds: number[]; sectionNet: string };
    /** Its credit notes (`invoices credit`), when it has any: their numbers, Σ of their gross (positive) and the gross − that, in force. */
    credits?: { numbers: string[]; credited: string; remaining: string };
  };
}

/** What the account page shows of one month. */
export interface AccountData {
  accountId: number;
  name: string;
  month: MonthChoice;
  months: MonthChoice[];
  account: BillingLine;
  invoice?: Invoice;
  /** The invoice's net, taxes and amount due (the gross), when its taxes are known. */
  totals?: InvoiceTotals;
  cloudspaces: AccountRow[];
  /** Machines and gateways, by cloud space. */
  machines: AccountRow[];
  /** The account's units per UTC day with samples. */
  days: { start: number; quantities: Quantities }[];
  /** The report of the account (what its statement is rendered from). */
  report: BillingReport;
}

/**
 * An account's month: its invoice (with a price list), its cloud spaces, machines and gateways
 * with own and allocated units and their share of the amount due, and its units per day; the
 * billing report is the one `billing --account-id` makes of the month, or, while the month
 * runs past the last hour held, of the month to date (so its statement says so). Throws
 * NotFoundError for an account the warehouse does not hold, or a month it holds no hour of.
 */
export async function accountData(
  store: Warehouse,
  settings: DashboardSettings,
  accountId: number,
  month?: string,
): Promise<AccountData> {
  const held = await heldOf(store, accountId);
  if (!held.account) throw notInWarehouse(`account ${accountId}`);
  const months = monthsOf(held);
  const chosen = chosenMonth(months, month, "the warehouse");
  const { report, days = [] } = await bill({
    source: store,
    period: { start: chosen.start, end: chosen.heldUntil ?? chosen.end, accountId },
    prices: settings.prices,
    rules: { units: settings.units, names: settings.names },
    produce: { days: true, dayLevels: ["account"] }, // the page shows the account's days alone
    skipBad: true,
    allowEmpty: true, // impossible values count as 0, listed in the data quality
  });
  const account = report.lines.find((l) => l.level === "account") ?? emptyAccountLine(accountId, "");
  const rows = report.lines
    .map((line, i): AccountRow | undefined =>
      line.level === "cloudspace" || line.level === "machine" || line.level === "gateway"
        ? {
            level: line.level,
            cloudspaceId: line.cloudspaceId!,
            machineId: line.machineId,
            name: line.name,
            sampleHours: line.sampleHours,
            quantities: line.level === "cloudspace" ? line.quantities : { ...line.quantities, NU: line.ownNicNu },
            cuAllocated: line.cuAllocated,
            cost: report.money?.[i]?.amount.toFixed(report.invoices?.[0]?.decimals ?? 2),
          }
        : undefined,
    )
    .filter((r): r is AccountRow => r !== undefined);
  return {
    accountId,
    name: account.name || held.name || "",
    month: chosen,
    months,
    account,
    invoice: report.invoices?.[0],
    totals: await invoiceTotals(store, settings, accountId, chosen, report),
    cloudspaces: rows.filter((r) => r.level === "cloudspace"),
    machines: rows.filter((r) => r.level !== "cloudspace"),
    days: days.map((d) => ({ start: d.start, quantities: d.lines.find((l) => l.level === "account")!.quantities })),
    report,
  };
}

/**
 * What the page reads of the warehouse's status (`warehouseStatus`, whose other figures cost
 * more to read than they do to show here): the span of the hours held up to the current hour
 * (the months offered), whether `accountId` holds one of them, and the name `sync` stored for it.
 */
async function heldOf(
  store: Warehouse,
  accountId: number,
  nowEpoch = clockNow(),
): Promise<Pick<WarehouseStatus, "period"> & { account: boolean; name: string | null }> {
  const rows = async (sql: string, values: Record<string, number>) =>
    (await store.connection.runAndReadAll(sql, values)).getRowObjectsJS();
  const [span] = await rows(
    "SELECT min(hour_epoch) AS first, max(hour_epoch) AS last, bool_or(account_id = $account) AS account FROM account_hours WHERE hour_epoch <= $now",
    { now: Math.floor(nowEpoch / HOUR_SECONDS) * HOUR_SECONDS, account: accountId },
  );
  const [named] = await rows("SELECT name FROM entity_names WHERE kind = 'account' AND id = $account", {
    account: accountId,
  });
  return {
    period:
      span?.first === null || span?.first === undefined
        ? null
        : { firstHourEpoch: Number(span.first), lastHourEpoch: Number(span.last) },
    account: span?.account === true,
    name: (named?.name as string | undefined) ?? null,
  };
}

/**
 * The totals of an account's invoice of a month: the issued invoice in force of the whole month
 * (the register's figures, as its PDF and XML give them), else, with a statement config that
 * taxes the account, the draft's (as the dashboard's PDF statement gives them); undefined when
 * the taxes are not known.
 */
async function invoiceTotals(
  store: Warehouse,
  settings: DashboardSettings,
  accountId: number,
  month: MonthChoice,
  report: BillingReport,
): Promise<InvoiceTotals | undefined> {
  const entries = await readRegister(store.connection, {
    period: { start: month.start, end: month.end },
    accountIds: [accountId],
  });
  const entry = entries.find((e) => e.document.kind === "invoice" && e.correctedBy === null);
  if (entry) {
    const issued = entry.document;
    const notes = entries.filter(
      (e) => e.document.kind === "creditNote" && e.document.corrects?.number === issued.number,
    );
    const remainder = remainderOf(
      issued,
      notes.map((e) => e.document),
    );
    const credits =
      notes.length === 0
        ? {}
        : {
            credits: {
              numbers: notes.map((e) => e.document.number),
              credited: remainder.credited.toFixed(issued.decimals),
              remaining: remainder.gross.toFixed(issued.decimals),
            },
          };
    return {
      net: issued.net.toJSON(),
      taxes: issued.taxes,
      tax: issued.tax.toJSON(),
      gross: amountDue(issued).toJSON(),
      ...(issued.allowances || issued.commitment
        ? {
            linesNet: sumOf(
              issued.lines.map((l) => l.net),
              issued.decimals,
            ).toJSON(),
          }
        : {}),
      currency: issued.currency,
      issued: {
        number: issued.number,
        issueDate: issued.issueDate,
        files: entry.files.map((f) => f.name),
        ...(issued.accountIds === undefined
          ? {}
          : {
              customer: {
                id: issued.customerId ?? String(issued.accountId),
                accountIds: issued.accountIds,
                sectionNet:
                  issued.sections?.find((x) => x.accountId === accountId)?.net.toJSON() ?? (0).toFixed(issued.decimals),
              },
            }),
        ...credits,
      },
    };
  }
  const config = settings.statement;
  if (
    config === undefined ||
    !report.invoices?.some((i) => i.accountId === accountId) ||
    taxOf(config, accountId) === undefined
  )
    return undefined;
  const draft = draftDocument(report, accountId, config);
  return {
    net: draft.net.toJSON(),
    taxes: draft.taxes,
    tax: draft.tax.toJSON(),
    gross: draft.gross.toJSON(),
    currency: draft.currency,
  };
}
