import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import { clockNow } from "./base/clock.js";
import type { ArqueroTable } from "./arqueroTable.js";
import { bill } from "./billEntry/bill.js";
import type { CalculateAccount, CalculateResult, Consumption } from "./billing/calculate.js";
import type { BillingOptions } from "./billing/billingOptions.js";
import type { Period } from "./base/period.js";
import type { Invoice } from "./billing/invoice.js";
import type { PriceList } from "./billing/prices.js";
import { nameOf, overlayNames, type Names } from "./billing/names.js";
import { UsageError } from "./base/errors.js";
import { checkEpochSeconds, isoUtc, monthPeriod } from "./base/time.js";
import { toParquet, type ParquetExport } from "./export/toParquet.js";
import { accountStats as accountStatsOf } from "./stats/accountStats.js";
import { cloudspaceStats as cloudspaceStatsOf } from "./stats/cloudspaceStats.js";
import { machineStats as machineStatsOf } from "./stats/machineStats.js";
import type { AccountStatsRequest, CloudspaceStatsRequest, MachineStatsRequest, StatsResponse } from "./stats/types.js";
import { readEntityNames } from "./store/entityNames.js";
import { checkWarehouse, type CheckReport } from "./store/checkWarehouse.js";
import { openWarehouse, type OpenWarehouseOptions } from "./store/openWarehouse.js";
import { loadReportDefinition } from "./store/reportDefinition.js";
import { runReport, type ReportParams, type ReportResult } from "./store/runReport.js";
import { DATA_TABLES, type DataTable } from "./store/schema.js";
import type { LoadReport, StoreSource, Warehouse } from "./store/types.js";
import { issueInvoices, type IssueRequest, type IssueResult } from "./invoices/issueInvoices.js";
import { correctInvoice, type CorrectRequest, type CorrectResult } from "./invoices/correctInvoice.js";
import { creditInvoice, type CreditRequest, type CreditResult } from "./invoices/creditInvoice.js";
import { overdueDocuments, readReceivables, type ReceivableEntry } from "./invoices/receivables.js";
import { creditStatement, type CreditStatementLine } from "./invoices/contracts/creditBalances.js";
import { recordPayment, type PaymentOutcome, type PaymentRequest } from "./invoices/recordPayment.js";
import { importStatement, type StatementImport } from "./invoices/importStatement.js";
import { sendDocuments, type SendRequest, type SendResult } from "./invoices/sendDocuments.js";
import type { RegisterFilter } from "./invoices/register/readRegister.js";
import { verifyRegister, type RegisterVerification } from "./invoices/register/registerChain.js";

/** An account the store holds data of, and the hours it holds. */
export interface HeldAccount {
  accountId: number;
  /** Its name: stored by `sync`, or from `names`; `""` when unknown. */
  name: string;
  /** The first hour held (epoch seconds). */
  start: number;
  /** The end of the last hour held (epoch seconds, exclusive): every hour held is in `[start, end)`. */
  end: number;
  /** The account-hours held (hours in `[start, end)` without data are missing: `end - start` is `3600 × hours` when none is). */
  hours: number;
  /** The calendar months (UTC, `YYYY-MM`) with at least one hour held, in order: what `invoices({ months })` takes. */
  months: string[];
}

/**
 * The periods `store.invoices` bills: one month (`"2026-10"`), several months (each billed as its
 * own period), or a period `[start, end)` in epoch seconds.
 */
export type InvoicePeriods = { month: string } | { months: readonly string[] } | { start: number; end: number };

/** What `store.invoiceRegister` lists: every document, or those of a month's period, of an account, or of a number. */
export interface InvoiceRegisterFilter {
  /** `YYYY-MM`: the documents billing that month (credit notes bill their invoice's period). */
  month?: string;
  accountId?: number;
  number?: string;
  /** The time status and days past due are of, epoch seconds. Default: the clock. */
  nowEpoch?: number;
}

/** Options of {@link open}: those of `openWarehouse` (skipBad, packed, onProgress, tables; `write` to issue invoices into `{ db }`). */
export type OpenOptions = OpenWarehouseOptions;

/** An open store: billing, statistics, reports and SQL over the warehouse of `open()`. */
export interface Store {
  /** What loading found: files, account-hours, duplicates dropped, files skipped. */
  readonly load: LoadReport;
  /** The DuckDB connection, for queries beyond these methods (tables of `SCHEMA_SQL`). */
  readonly connection: DuckDBConnection;
  /**
   * `billing/calculate` (docs/cli.md shape) over `[start, end)`, epoch seconds; names: those `sync`
   * stored, under `options.names`. Throws an ImpossibleValuesError (docs/warehouse.md) when a billed
   * field of the period holds NaN, ±Infinity or a negative value, unless the store was opened
   * with `skipBad` (then it counts as 0). An `accountId` the store has never seen (no hour, no
   * name `sync` stored) is a UsageError (UNKNOWN_ID) naming the known ones, never a bill of 0; a
   * period it holds no hour of (of that account, when given) an EmptyPeriodError naming the hours it holds.
   */
  calculate(params: Period & { accountId: number }, options?: BillingOptions): Promise<{ account: CalculateAccount }>;
  calculate(
    params: Period & { accountId?: undefined },
    options?: BillingOptions,
  ): Promise<{ consumption: Consumption }>;
  calculate(params: Period, options?: BillingOptions): Promise<CalculateResult>;
  /**
   * The invoice of an account over `[start, end)` under a price list (docs/formulas.md): one line per
   * priced unit (quantity, unit price, amount rounded half-even) and the amount due, the sum
   * of the rounded lines. `JSON.stringify(invoice)` gives amounts as decimal strings. An account
   * the store has never seen is a UsageError (UNKNOWN_ID) naming the known ones, as in `calculate`;
   * a period it holds no hour of for that account an EmptyPeriodError, never an invoice of 0.
   */
  invoice(params: Period & { accountId: number }, prices: PriceList, options?: BillingOptions): Promise<Invoice>;
  /**
   * The invoice of every account with data in each period asked for (a month, several months,
   * or `[start, end)`), ordered by period, then account: each as `invoice` gives it for that
   * account and period alone (`invoice.start`/`invoice.end` say which). Every account's
   * figures of a period come from one pass over the warehouse. A period of which the warehouse
   * holds no hour at all (a month before the data, or after) is an EmptyPeriodError (EMPTY_PERIOD)
   * naming the hours it holds, never an empty list.
   */
  invoices(periods: InvoicePeriods, prices: PriceList, options?: BillingOptions): Promise<Invoice[]>;
  /** The accounts the store holds data of, in id order, with their names and the hours held. */
  accounts(options?: { names?: Names }): Promise<HeldAccount[]>;
  /** `machines/stats` (docs/statistics.md shape). */
  machineStats(request: MachineStatsRequest): Promise<StatsResponse>;
  /** `cloudspaces/stats` (docs/statistics.md shape). */
  cloudspaceStats(request: CloudspaceStatsRequest): Promise<StatsResponse>;
  /** `accounts/stats` (docs/statistics.md shape). */
  accountStats(request: AccountStatsRequest): Promise<StatsResponse>;
  /** Runs SQL (with optional `$name` parameters) and returns the result as an arquero table; BIGINTs become numbers when exact. */
  query(sql: string, params?: Record<string, DuckDBValue>): Promise<ArqueroTable>;
  /** A whole warehouse table (a data table, or the `files` manifest) as an arquero table. */
  table(name: DataTable | "files"): Promise<ArqueroTable>;
  /** The data-quality report of `cloudunits check`. */
  check(): Promise<CheckReport>;
  /** Runs a report of `reports/` by name, or a `.sql` file, with `$start`, `$end`, `$account_id`. */
  report(nameOrPath: string, params?: ReportParams): Promise<ReportResult>;
  /** Writes the tables as partitioned Parquet into a new or empty directory. */
  exportParquet(outDir: string): Promise<ParquetExport>;
  /**
   * Issues the invoices of an ended month into the warehouse's register and writes their files
   * into `request.out` (docs/billing.md, `cloudunits invoices issue`): new accounts numbered,
   * issued ones written again from the register, byte for byte. Throws a UsageError for a month
   * not ended, MissingHoursError (hours not held, unless `acceptMissing`), IssuedInvoiceDiffersError
   * (the warehouse now gives other figures for an issued invoice: nothing changed). Needs a store
   * opened with `open({ db }, { write: true })` (a UsageError otherwise).
   */
  issueInvoices(request: IssueRequest): Promise<IssueResult>;
  /**
   * Corrects an issued invoice (`cloudunits invoices correct`): a credit note cancelling it and a
   * new invoice of today's figures, recorded and written into `request.out`. Needs a store opened
   * with `open({ db }, { write: true })`.
   */
  correctInvoice(request: CorrectRequest): Promise<CorrectResult>;
  /**
   * Credits part of an issued invoice (`cloudunits invoices credit`): a credit note of an amount
   * before tax (`credit: { amount }`, spread over its tax categories in proportion to their net) or
   * of whole lines (`credit: { lines }`), recorded and written into `request.out`; the invoice stays
   * in force, and its credit notes never add up to more than it (a UsageError, CREDIT_EXCEEDS).
   * Needs a store opened with `open({ db }, { write: true })`.
   */
  creditNote(request: CreditRequest): Promise<CreditResult>;
  /**
   * The register's documents (every invoice and credit note issued), oldest first, each with what is
   * owed on it at `filter.nowEpoch` (`receivable`: due date, paid, outstanding, status, delivered);
   * empty for a warehouse that issued none. Throws RegisterBrokenError when the register disagrees with its chain
   * (`verifyRegister` names what).
   */
  invoiceRegister(filter?: InvoiceRegisterFilter): Promise<ReceivableEntry[]>;
  /** The overdue documents at `nowEpoch` (default: the clock), longest overdue first (`cloudunits invoices overdue`). */
  overdueDocuments(nowEpoch?: number): Promise<ReceivableEntry[]>;
  /**
   * Prepaid credit's movements (granted, consumed, given back, expired), oldest first, each with its
   * credit's balance after it; of one customer with `customerId` (`cloudunits invoices credits`).
   * Throws RegisterBrokenError when the register disagrees with its chain.
   */
  credits(filter?: { customerId?: string }): Promise<CreditStatementLine[]>;
  /** Records a payment of an invoice (`cloudunits invoices pay`). Needs `open({ db }, { write: true })`. */
  recordPayment(request: PaymentRequest): Promise<PaymentOutcome>;
  /** Records the payments of a camt.053 bank statement file (`cloudunits invoices payments`). Needs `open({ db }, { write: true })`. */
  importStatement(camtFile: string, nowEpoch?: number): Promise<StatementImport>;
  /** Delivers documents' e-invoices to an access point (`cloudunits invoices send`). Needs `open({ db }, { write: true })`. */
  sendDocuments(request: SendRequest): Promise<SendResult>;
  /**
   * Verifies the register against its chain (`cloudunits invoices verify`): what was changed or removed, and its head
   * (`N:SHA256`, to keep outside the warehouse). `kept`: a head printed before, which the register must still hold.
   */
  verifyRegister(options?: { kept?: string }): Promise<RegisterVerification>;
  /** Releases the database (idempotent). */
  close(): void;
}

/** BIGINT values as numbers when every value of the column is a safe integer, else kept as bigint. */
function plainColumn(values: unknown[]): unknown[] {
  if (!values.some((v) => typeof v === "bigint")) return values;
  const safe = values.every(
    (v) => typeof v !== "bigint" || (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)),
  );
  return safe ? values.map((v) => (typeof v === "bigint" ? Number(v) : v)) : values;
}

/**
 * Opens a store over input paths (zips and directories, loaded into an in-memory DuckDB)
 * or `{ db }` (a database file made by `ingest`). The same questions give the same answers
 * either way. Bad files and conflicts throw a BadInputError naming them all, unless
 * `skipBad` (then they are in `load.skipped`). Call `close()` when done.
 *
 * ```ts
 * const store = await open(["consumption.zip"]);
 * try {
 *   const bill = await store.calculate({ start: parseTime("2026-10-01"), end: parseTime("2026-11-01"), accountId: 7 });
 * } finally {
 *   store.close();
 * }
 * ```
 */
export async function open(source: StoreSource, options: OpenOptions = {}): Promise<Store> {
  const warehouse = await openWarehouse(source, options);
  const { connection } = warehouse;
  const query = async (sql: string, params?: Record<string, DuckDBValue>): Promise<ArqueroTable> => {
    const reader = await connection.runAndReadAll(sql, params);
    const columns = reader.getColumnsObjectJS();
    const aq = await import("arquero"); // loaded by the first query: importing cloudunits loads none of the heavy packages
    return aq.table(Object.fromEntries(reader.columnNames().map((name) => [name, plainColumn(columns[name] ?? [])])));
  };
  return {
    load: warehouse.load,
    connection,
    ...billingMethods(warehouse, options),
    accounts: ({ names } = {}) => heldAccounts(connection, names),
    machineStats: (request) => machineStatsOf(connection, request),
    cloudspaceStats: (request) => cloudspaceStatsOf(connection, request),
    accountStats: (request) => accountStatsOf(connection, request),
    query,
    table: (name) => {
      if (name !== "files" && !(DATA_TABLES as readonly string[]).includes(name)) {
        throw new UsageError(`unknown table "${String(name)}" (tables: files, ${DATA_TABLES.join(", ")})`);
      }
      return query(`SELECT * FROM ${name}`);
    },
    check: () => checkWarehouse(connection, warehouse.load),
    report: (nameOrPath, params) => runReport(connection, loadReportDefinition(nameOrPath), params),
    exportParquet: (outDir) => toParquet(connection, { outDir }),
    ...registerMethods(connection, () => checkWritable(source, options)),
    close: () => warehouse.close(),
  };
}

/** The store's bills: `calculate`, `invoice` and `invoices`, each a bill of the warehouse. */
function billingMethods(warehouse: Warehouse, options: OpenOptions): Pick<Store, "calculate" | "invoice" | "invoices"> {
  const accountInvoices = async (period: Period, prices: PriceList, rules: BillingOptions) => {
    const { report } = await bill({
      source: warehouse,
      period,
      prices,
      rules,
      produce: { levels: ["account"] },
      skipBad: options.skipBad,
    });
    return report.invoices!;
  };
  return {
    calculate: (async (period: Period, rules: BillingOptions = {}) => {
      return (await bill({ source: warehouse, period, rules, produce: { calculate: true }, skipBad: options.skipBad }))
        .calculate!;
    }) as Store["calculate"],
    invoice: async (period, prices, rules = {}) => (await accountInvoices(period, prices, rules))[0]!,
    invoices: async (periods, prices, rules = {}) => {
      const invoices: Invoice[] = [];
      for (const period of periodsOf(periods)) invoices.push(...(await accountInvoices(period, prices, rules)));
      return invoices;
    },
  };
}

/** The accounts the warehouse holds hours of, in id order, with their names (under `names`) and the months held. */
async function heldAccounts(connection: DuckDBConnection, names: Names | undefined): Promise<HeldAccount[]> {
  const all = overlayNames(await readEntityNames(connection), names);
  // per account and UTC month (hour_epoch is whole hours in epoch seconds)
  const reader = await connection.runAndReadAll(
    "SELECT account_id, strftime(epoch_ms(hour_epoch * 1000), '%Y-%m') AS month, min(hour_epoch) AS first, max(hour_epoch) AS last, count(*) AS hours " +
      "FROM account_hours GROUP BY 1, 2 ORDER BY 1, 2",
  );
  const held = new Map<number, HeldAccount>();
  for (const r of reader.getRowObjectsJS()) {
    const accountId = Number(r.account_id);
    const [first, last, hours] = [Number(r.first), Number(r.last) + 3600, Number(r.hours)];
    const account = held.get(accountId);
    if (account === undefined) {
      held.set(accountId, {
        accountId,
        name: nameOf(all, "account", accountId),
        start: first,
        end: last,
        hours,
        months: [String(r.month)],
      });
    } else {
      account.end = last;
      account.hours += hours;
      account.months.push(String(r.month));
    }
  }
  return [...held.values()];
}

/** The methods of the invoice register: those that write to it call `checkWritable` first. */
function registerMethods(
  connection: DuckDBConnection,
  checkWritable: () => void,
): Pick<
  Store,
  | "issueInvoices"
  | "correctInvoice"
  | "creditNote"
  | "invoiceRegister"
  | "overdueDocuments"
  | "credits"
  | "recordPayment"
  | "importStatement"
  | "sendDocuments"
  | "verifyRegister"
> {
  /** `write` on this connection, once the store is known to be open to write. */
  const writing =
    <A extends unknown[], R>(write: (connection: DuckDBConnection, ...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      checkWritable();
      return write(connection, ...args);
    };
  return {
    issueInvoices: writing(issueInvoices),
    correctInvoice: writing(correctInvoice),
    creditNote: writing(creditInvoice),
    invoiceRegister: (filter = {}) =>
      readReceivables(connection, registerFilterOf(filter), filter.nowEpoch ?? clockNow()),
    overdueDocuments: (nowEpoch = clockNow()) => overdueDocuments(connection, nowEpoch),
    credits: (filter = {}) => creditStatement(connection, filter),
    recordPayment: writing(recordPayment),
    importStatement: writing(importStatement),
    sendDocuments: writing(sendDocuments),
    verifyRegister: (verifyOptions = {}) => verifyRegister(connection, verifyOptions),
  };
}

/** Issuing writes the register of a warehouse file, opened to write. */
function checkWritable(source: StoreSource, options: OpenOptions): void {
  if (Array.isArray(source))
    throw new UsageError(
      "invoices are issued into a warehouse file: open({ db: FILE }, { write: true }), not a store of inputs (its register would vanish with it)",
      { code: "STORE_READ_ONLY" },
    );
  if (!options.write)
    throw new UsageError(
      `${source.db} is open read-only: open({ db: ${JSON.stringify(source.db)} }, { write: true }) to issue or correct invoices, or record payments and deliveries`,
      { code: "STORE_READ_ONLY" },
    );
}

function registerFilterOf(filter: InvoiceRegisterFilter): RegisterFilter {
  return {
    ...(filter.number === undefined ? {} : { number: filter.number }),
    ...(filter.accountId === undefined ? {} : { accountIds: [filter.accountId] }),
    ...(filter.month === undefined ? {} : { periodStartsIn: monthPeriod(filter.month) }),
  };
}

/** The periods of an `InvoicePeriods`, checked: months as `monthPeriod` reads them, in the order given, each once. */
function periodsOf(periods: InvoicePeriods): { start: number; end: number }[] {
  if ("month" in periods) return [monthPeriod(periods.month)];
  if ("months" in periods) {
    if (periods.months.length === 0)
      throw new UsageError('no months: give one or more, e.g. { months: ["2026-09", "2026-10"] }');
    const seen = new Set<string>();
    return periods.months.filter((m) => !seen.has(m.trim()) && seen.add(m.trim())).map((m) => monthPeriod(m));
  }
  const start = checkEpochSeconds(periods.start, "start");
  const end = checkEpochSeconds(periods.end, "end");
  if (end <= start)
    throw new UsageError(
      `the period is empty: end ${isoUtc(end)} is not after start ${isoUtc(start)} (the period is [start, end))`,
    );
  return [{ start, end }];
}
