import { statSync } from "node:fs";
import type { Writable } from "node:stream";
import type { Argv, CommandModule } from "yargs";
import { bill, type Bill, type BillProduce, type BillRequest } from "../../billEntry/bill.js";
import { sourceRoad } from "../../billEntry/sourceRoad.js";
import type { Warning } from "../../billing/dataQuality.js";
import { loadNames } from "../../billing/names.js";
import { loadPrices, type PriceList } from "../../billing/prices.js";
import type { BillingReport } from "../../billing/billingReport.js";
import type { InvoiceDocument } from "../../invoices/document/invoiceDocument.js";
import type { StatementConfig } from "../../invoices/document/statementConfig.js";
import { loadUnits } from "../../billing/units.js";
import { allUnitsText } from "../../billing/unitCatalog.js";
import { UsageError } from "../../base/errors.js";
import {
  BILLING_FORMAT_NAMES,
  billingFormat,
  checkFormatFlags,
  formatHelp,
  type BillingFormatName,
  type FormatFlags,
} from "../../export/billingFormats.js";
import { writeAtomic } from "../../export/writeAtomic.js";
import { isoUtc } from "../../base/time.js";
import { argvPeriod } from "../periodArgs.js";
import { inputOptions, storeSourceOf, withReadProgress, withWarehouse, workersOf, type InputArgs } from "../inputs.js";
import { sizeHeapsForStreaming } from "../streamingHeap.js";
import { commandLine } from "./index.js";
import { flagWords } from "../flagWords.js";

/** DuckDB's memory for billing from `--db`: its queries are a day's rows each (docs/performance.md). */
const DB_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * What DuckDB frees at once, beyond which its allocator gives the memory back to the system
 * (`allocator_bulk_deallocation_flush_threshold`; DuckDB's default 512 MiB is never reached
 * here): the memory of each grouped query over a run of hours is kept otherwise, so the peak
 * grew with the runs of a long period (docs/performance.md, issue 45).
 */
const DB_ALLOCATOR_FLUSH = "1MiB";

const options = {
  start: { type: "string", describe: "start of the period, inclusive: epoch seconds or ISO 8601 (UTC without a zone)" },
  end: { type: "string", describe: "end of the period, exclusive: epoch seconds or ISO 8601" },
  month: {
    type: "string",
    describe:
      "a calendar month in UTC, YYYY-MM: the period [first day, first day of the next month), instead of --start/--end",
  },
  "account-id": {
    type: "number",
    describe: "one account, detailed per cloud space and machine (default: the whole environment)",
  },
  "all-units": { type: "boolean", default: false, describe: allUnitsText() },
  per: {
    choices: ["hour", "month"] as const,
    default: "hour",
    describe: "unit-hours, or unit-months (unit-hours / 720); NU stays TiB transferred",
  },
  prices: { type: "string", describe: "a price list (JSON or YAML): currency, price per unit-hour or unit-month" },
  units: { type: "string", describe: "a units file (JSON or YAML) overriding the published constants" },
  names: { type: "string", describe: "names of accounts, cloud spaces and machines (CSV or JSON: kind,id,name)" },
  "cu-rollup": {
    choices: ["aggregate", "sum"] as const,
    default: "aggregate",
    describe: "CU of a level from its own totals (aggregate) or the sum of its machines' CU",
  },
  format: { choices: BILLING_FORMAT_NAMES, default: "json", describe: formatHelp() },
  hourly: {
    type: "boolean",
    default: false,
    describe: "xlsx: add the Hourly sheet (one row per entity, level and hour)",
  },
  "per-account": {
    type: "boolean",
    default: false,
    describe:
      "xlsx: --out is a directory; write summary.xlsx and one workbook per account (its invoice pack; with --statement, its draft PDF too)",
  },
  statement: {
    type: "string",
    describe:
      "pdf, and the --per-account pack: the statement config (YAML or JSON): issuer, customers, their taxes, numbering, payment terms",
  },
  detail: { choices: ["hourly"] as const, describe: "csv: one row per entity, level and hour" },
  "per-period": {
    type: "boolean",
    default: false,
    describe: "FOCUS: one row per entity and unit over the period instead of per hour",
  },
  excel: { type: "boolean", default: false, describe: "csv: start with a UTF-8 byte order mark for Excel" },
  out: { type: "string", describe: "write to FILE (atomically) instead of stdout" },
  "warnings-json": { type: "string", describe: "also write the data-quality warnings to FILE as JSON" },
} as const;

interface BillingArgs extends InputArgs {
  start?: string;
  end?: string;
  month?: string;
  hourly: boolean;
  perAccount: boolean;
  statement?: string;
  accountId?: number;
  allUnits: boolean;
  per: "hour" | "month";
  prices?: string;
  units?: string;
  names?: string;
  cuRollup: "aggregate" | "sum";
  format: BillingFormatName;
  detail?: "hourly";
  perPeriod: boolean;
  excel: boolean;
  out?: string;
  warningsJson?: string;
}

async function writeOut(out: string | undefined, content: AsyncIterable<string> | string): Promise<void> {
  if (out !== undefined) return writeAtomic(out, content);
  const stdout: Writable = process.stdout;
  const write = (text: string) =>
    new Promise<void>((resolve, reject) => stdout.write(text, (e) => (e ? reject(e) : resolve())));
  if (typeof content === "string") await write(content);
  else for await (const chunk of content) await write(chunk);
}

/** Whether `--out` names a folder: it ends in a slash, or is a folder already. */
function namesFolder(out: string): boolean {
  if (/[\\/]$/.test(out)) return true;
  try {
    return statSync(out).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The drafts of `--format pdf` (`--out` a folder, made when missing, or with `--account-id` a
 * file) and of the `--per-account` pack (into its folder): DRAFT on every page, no number; only
 * `invoices issue` issues invoices.
 */
async function writeStatementFiles(argv: BillingArgs, report: BillingReport, config: StatementConfig): Promise<void> {
  if (report.invoices!.length === 0) {
    if (argv.format !== "pdf") return; // the pack of no account has no draft either
    const who = argv.accountId === undefined ? "no account has" : `account ${argv.accountId} has no`;
    throw new UsageError(
      `${who} consumption in [${isoUtc(report.params.start)}, ${isoUtc(report.params.end)}): no draft to make (nothing written)`,
      { code: "NO_STATEMENT" },
    );
  }
  const { writeStatements } = await import("../../invoices/render/pdf/writeStatements.js");
  for (const note of config.deprecations) process.stderr.write(`cloudunits: note: ${note}\n`);
  const unlisted = report.invoices!.map((inv) => inv.accountId).filter((id) => !config.customers.has(id));
  if (unlisted.length > 0) {
    process.stderr.write(
      `cloudunits: warning: ${config.source} has no customer entry (legal name, address, country) for account${unlisted.length === 1 ? "" : "s"} ${unlisted.join(", ")}: the draft is addressed by the account's name, and an invoice cannot be issued\n`,
    );
  }
  const target =
    argv.format === "pdf" && argv.accountId !== undefined && !namesFolder(argv.out!)
      ? { file: argv.out! }
      : { dir: argv.out! };
  await writeStatements(report, config, target, {
    onWarning: (message) => process.stderr.write(`cloudunits: warning: ${message}\n`),
  });
}

/** The flags the formats read (`checkFormatFlags` refuses those a format has no use for). */
function formatFlagsOf(argv: BillingArgs): FormatFlags {
  return {
    detail: argv.detail,
    hourly: argv.hourly,
    perAccount: argv.perAccount,
    perPeriod: argv.perPeriod,
    excel: argv.excel,
    statement: argv.statement !== undefined,
    prices: argv.prices !== undefined,
    out: argv.out,
  };
}

/** The bill asked for, but its source: the period, the prices, the rules (units and names files read), what to produce. */
async function billRequestOf(
  argv: BillingArgs,
  period: BillRequest["period"],
  produce: BillProduce,
  prices: PriceList | undefined,
): Promise<Omit<BillRequest, "source">> {
  const request: Omit<BillRequest, "source"> = {
    period,
    // json is the billing/calculate shape: without an account, the environment alone, and no money
    prices: produce.calculate ? undefined : prices,
    rules: {
      units: argv.units === undefined ? undefined : await loadUnits(argv.units),
      names: argv.names === undefined ? undefined : await loadNames(argv.names),
      cuRollup: argv.cuRollup,
      allUnits: argv.allUnits,
      per: argv.per,
    },
    produce,
    skipBad: argv.skipBad,
    unitsFile: argv.units,
  };
  if (produce.calculate && prices)
    process.stderr.write(
      "cloudunits: note: --format json is the billing/calculate shape, without money; use csv, xlsx or focus-csv for amounts\n",
    );
  return request;
}

/** Bills the input files (a progress bar on a terminal) and renders the bill, released after. */
async function billFiles(
  argv: BillingArgs,
  source: string[],
  request: Omit<BillRequest, "source">,
  render: (billed: Bill) => Promise<Warning[]>,
): Promise<Warning[]> {
  const read = await withReadProgress(async (onProgress) => {
    // and for the hourly CSV, which writes the engine's rows (no object per line); not for the other hourly outputs
    // (FOCUS makes line objects, exceljs keeps objects per row)
    const road = sourceRoad(source, request.produce ?? {});
    if (road === "files" || (road === "files read again by hour" && argv.format === "csv")) sizeHeapsForStreaming();
    const billed = await bill({
      ...request,
      source,
      reading: { packed: argv.packed, workers: workersOf(argv), onProgress },
    });
    return { billed, load: billed.report.load };
  });
  return withBill(read, render);
}

/** Bills the warehouse of `--db` and renders the bill; the `--per-account` pack of an issued month with its invoices as the register holds them. */
async function billWarehouse(
  argv: BillingArgs,
  request: Omit<BillRequest, "source">,
  render: (billed: Bill, issued?: readonly InvoiceDocument[]) => Promise<Warning[]>,
): Promise<Warning[]> {
  // the engine reads a day's rows at a time; DuckDB would otherwise keep every page it read cached
  return withWarehouse(
    argv,
    async (warehouse) => {
      await warehouse.connection.run("SET allocator_bulk_deallocation_flush_threshold = $bytes", {
        bytes: DB_ALLOCATOR_FLUSH,
      });
      const { invoicesInForce } = await import("../../invoices/register/readRegister.js");
      const issued = argv.perAccount
        ? await invoicesInForce(
            warehouse.connection,
            request.period,
            argv.accountId === undefined ? undefined : [argv.accountId],
          )
        : undefined;
      return render(await bill({ ...request, source: warehouse }), issued);
    },
    { memoryLimitBytes: DB_MEMORY_LIMIT_BYTES },
  );
}

/** The data-quality warnings on stderr (but those the load listed, and those the text report on stdout holds), and in `--warnings-json`. */
async function reportWarnings(
  argv: BillingArgs,
  period: BillRequest["period"],
  warnings: readonly Warning[],
): Promise<void> {
  // Skipped files and duplicates were already listed with the load.
  // the text report on stdout holds its warnings: printed on stderr too, a terminal showed each twice
  const warningsShown = argv.format === "text" && argv.out === undefined;
  for (const w of warningsShown ? [] : warnings) {
    if (w.code !== "SKIPPED_FILE" && w.code !== "DUPLICATES")
      process.stderr.write(`cloudunits: warning: ${flagWords(w.message)}\n`);
  }
  if (argv.warningsJson !== undefined) {
    const body = {
      period: { start: isoUtc(period.start), end: isoUtc(period.end), accountId: argv.accountId ?? null },
      cuRollup: argv.cuRollup,
      per: argv.per,
      warnings,
    };
    await writeAtomic(argv.warningsJson, `${JSON.stringify(body, null, 2)}\n`);
  }
}

/** `cloudunits billing`: billing units and money of a period as JSON, CSV, XLSX or FOCUS. */
export const billingCommand: CommandModule<object, BillingArgs> = {
  ...commandLine("billing"),
  builder: (yargs) => inputOptions(yargs.options(options)) as unknown as Argv<BillingArgs>,
  handler: async (argv) => {
    const period = { ...argvPeriod(argv), accountId: argv.accountId };
    const format = billingFormat(argv.format);
    const flags = formatFlagsOf(argv);
    checkFormatFlags(argv.format, flags);
    const produce = format.produce?.(flags) ?? {};
    const prices = argv.prices === undefined ? undefined : await loadPrices(argv.prices);
    const statementConfig =
      argv.statement === undefined
        ? undefined
        : await (await import("../../invoices/document/statementConfig.js")).loadStatementConfig(argv.statement);
    const request = await billRequestOf(argv, period, produce, prices);
    /** The report statements are made from, once the warehouse is closed (numbering writes to it). */
    let statementReport: BillingReport | undefined;

    /** Hands the bill to its format's writer; the warnings to print. */
    const render = async (billed: Bill, issued?: readonly InvoiceDocument[]): Promise<Warning[]> => {
      const { report } = billed;
      await format.write?.({
        report,
        calculate: billed.calculate,
        hourly: billed.hourly,
        flags,
        statement: statementConfig,
        issued,
        write: (content) => writeOut(argv.out, content),
      });
      if (statementConfig) statementReport = report;
      return [...report.warnings, ...((await format.warnings?.(report)) ?? [])];
    };
    const source = storeSourceOf(argv);
    const warnings = Array.isArray(source)
      ? await billFiles(argv, source, request, render)
      : await billWarehouse(argv, request, render);
    if (statementReport && statementConfig) await writeStatementFiles(argv, statementReport, statementConfig);
    // as generate, fetch and export do: a file written says so (stdout stays the report's, or empty)
    if (argv.out !== undefined)
      process.stderr.write(`cloudunits: wrote ${argv.format}${argv.perAccount ? " workbooks" : ""} to ${argv.out}\n`);
    await reportWarnings(argv, period, warnings);
  },
};

/** Renders a bill of files with `render`, then releases it (as every bill may be). */
async function withBill<R>({ billed }: { billed: Bill }, render: (billed: Bill) => Promise<R>): Promise<R> {
  try {
    return await render(billed);
  } finally {
    billed.close();
  }
}
