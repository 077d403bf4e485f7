import { UsageError } from "../base/errors.js";
import type { BillProduce } from "../billEntry/bill.js";
import type { BillingReport } from "../billing/billingReport.js";
import type { CalculateResult } from "../billing/calculate.js";
import type { Warning } from "../billing/dataQuality.js";
import type { HourlyStream } from "../billing/hourlyStream.js";
import type { StatementConfig } from "../invoices/document/statementConfig.js";
import type { DraftDocument, InvoiceDocument } from "../invoices/document/invoiceDocument.js";

/** The options of a billing output that only some formats take (the CLI's flags, by name). */
export interface FormatFlags {
  /** csv: one row per entity, level and hour. */
  detail?: "hourly";
  /** xlsx: add the Hourly sheet. */
  hourly?: boolean;
  /** xlsx: a directory with summary.xlsx and one workbook per account. */
  perAccount?: boolean;
  /** FOCUS: one row per entity and unit over the period. */
  perPeriod?: boolean;
  /** csv: a UTF-8 byte order mark for Excel. */
  excel?: boolean;
  /** A statement config is given (pdf; the xlsx pack). */
  statement?: boolean;
  /** A price list is given. */
  prices?: boolean;
  /** Where the output goes; undefined: stdout. */
  out?: string;
}

/** What a format's writer is given: the report, what else its `produce` asked of the bill, and where text goes. */
export interface FormatOutput {
  report: BillingReport;
  /** The `billing/calculate` shape, when `produce` asks for it. */
  calculate?: CalculateResult;
  /** The report's hourly lines, when `produce` asks for them (the output lists every hour). */
  hourly?: HourlyStream;
  flags: FormatFlags;
  /** Writes text to the output (`--out` or stdout). */
  write(content: string | AsyncIterable<string>): Promise<void>;
  /** The statement config (`--statement`): the pack's documents of accounts not issued are drafts of it. */
  statement?: StatementConfig;
  /** The register's invoices in force of the report's period (with `--db`): the pack shows these as issued, never a draft of them. */
  issued?: readonly InvoiceDocument[];
}

/** One billing output format: its rules (which flags it takes, what it needs) and its writer. */
export interface BillingFormat {
  /** What it writes, a few words for `--help` and the docs (`formatHelp` adds what it needs). */
  description: string;
  /** The format-only flags it takes (the others are refused with it). */
  flags: readonly (keyof typeof FLAG_RULES)[];
  /** Why it needs a price list, if it does. */
  needsPrices?: string;
  /** It writes a binary file: `--out` is required. */
  binary?: boolean;
  /** It needs a statement config (`--statement`): the issuer, customers and numbering of its documents. */
  needsStatement?: boolean;
  /**
   * What the format needs of the bill besides the report's lines (see `BillProduce`): the
   * `billing/calculate` shape (then no money: the report holds the shape's levels alone), the
   * hourly lines (the output lists every hour), fingerprints. Default nothing more.
   */
  produce?: (flags: FormatFlags) => BillProduce;
  /** Writes the output; undefined: the caller writes it (pdf: numbered statements). */
  write?: (output: FormatOutput) => Promise<void>;
  /** The warnings of the output, besides the report's. */
  warnings?: (report: BillingReport) => Promise<Warning[]>;
}

/** The flags that only some formats take, and what a user is told when one is given to another format. */
const FLAG_RULES = {
  detail: "--detail hourly applies to --format csv (xlsx: --hourly; FOCUS is hourly)",
  hourly: "--hourly applies to --format xlsx (csv: --detail hourly)",
  perAccount: "--per-account applies to --format xlsx (one workbook per account in the --out directory)",
  perPeriod: "--per-period applies to --format focus-csv and focus-parquet",
  excel: "--excel applies to --format csv",
} as const satisfies Partial<Record<keyof FormatFlags, string>>;

const FOCUS_NEEDS_PRICES = "FOCUS rows are costs";
const focusWarningsOf = async (report: BillingReport) => (await import("./focusRows.js")).focusWarnings(report);

/**
 * The billing formats, in the order `--help` lists them: what each takes and needs, and its
 * writer. The CLI's choices, checks and dispatch all come from here. The writers of xlsx, FOCUS
 * and pdf load only for their format (exceljs is the slowest to load: docs/performance.md, start-up).
 */
export const BILLING_FORMATS = {
  json: {
    description: "the billing/calculate shape, without money",
    flags: [],
    produce: () => ({ calculate: true }),
    write: async (o) => o.write(`${JSON.stringify(o.calculate)}\n`),
  },
  text: {
    description: "a readable table, with the invoices",
    flags: [],
    write: async (o) => o.write((await import("./toBillingText.js")).toBillingText(o.report)),
  },
  csv: {
    description: "a row per entity and level (--detail hourly: per hour too)",
    flags: ["detail", "excel"],
    produce: (f) => ({ hourly: f.detail === "hourly" }),
    write: async (o) =>
      o.write(
        (await import("./toBillingCsv.js")).toBillingCsv(o.report, {
          excel: o.flags.excel,
          hourly: o.flags.detail === "hourly" ? o.hourly! : undefined,
        }),
      ),
  },
  xlsx: {
    description: "a workbook for finance (--hourly; --per-account: an invoice pack per account)",
    flags: ["hourly", "perAccount"],
    binary: true,
    // the About sheet shows the inputs' SHA-256 and the content's fingerprint
    produce: (f) => ({ hourly: f.hourly === true, fingerprints: true }),
    write: async ({ report, hourly, flags, statement, issued = [] }) => {
      const xlsx = await import("./writeBillingXlsx.js");
      const { draftDocument } = await import("../invoices/document/draftDocument.js");
      // an account's invoice issued for the period is shown as issued; a draft only for an account not issued
      const documentOf = (accountId: number): InvoiceDocument | DraftDocument | undefined =>
        issued.find((d) => d.accountId === accountId) ??
        (statement ? draftDocument(report, accountId, statement) : undefined);
      const found = (report.invoices ?? []).map((inv) => documentOf(inv.accountId)).filter((d) => d !== undefined);
      const documents = found.length > 0 ? found : undefined;
      if (flags.perAccount)
        await xlsx.writeInvoicePack(report, hourly, flags.out!, { hourly: flags.hourly, documents });
      else await xlsx.writeBillingXlsx(report, hourly, flags.out!, { hourly: flags.hourly });
    },
  },
  "focus-csv": {
    description: "FOCUS 1.3 cost rows as CSV",
    flags: ["perPeriod"],
    needsPrices: FOCUS_NEEDS_PRICES,
    produce: () => ({ hourly: true }),
    write: async (o) =>
      o.write((await import("./toFocusCsv.js")).toFocusCsv(o.report, o.hourly!, { perPeriod: o.flags.perPeriod })),
    warnings: focusWarningsOf,
  },
  "focus-parquet": {
    description: "FOCUS 1.3 cost rows as Parquet",
    flags: ["perPeriod"],
    needsPrices: FOCUS_NEEDS_PRICES,
    binary: true,
    produce: () => ({ hourly: true }),
    write: async (o) =>
      (await import("./writeFocusParquet.js")).writeFocusParquet(o.report, o.hourly!, o.flags.out!, {
        perPeriod: o.flags.perPeriod,
      }),
    warnings: focusWarningsOf,
  },
  pdf: {
    description:
      "a draft invoice per account, DRAFT on every page and no number (into --out DIR, or --out FILE with --account-id; `invoices issue` issues invoices)",
    flags: [],
    needsPrices: "a statement shows charges",
    needsStatement: true,
    binary: true,
  },
} as const satisfies Record<string, BillingFormat>;

/** What the format needs besides the period and inputs: the flags it cannot go without. */
function needsOf(format: BillingFormat): string[] {
  return [format.needsPrices && "--prices", format.needsStatement && "--statement", format.binary && "--out"].filter(
    (n): n is string => Boolean(n),
  );
}

/**
 * The `--format` help of `billing`, made from the registry: each format, what it writes and
 * what it needs. `docs/cli.md` holds the same text (a test compares them).
 */
export function formatHelp(): string {
  return Object.entries(BILLING_FORMATS as Record<string, BillingFormat>)
    .map(([name, format]) => {
      const needs = needsOf(format);
      return `${name}: ${format.description}${needs.length === 0 ? "" : `, needs ${needs.join(" ")}`}`;
    })
    .join("; ");
}

/** A billing format's name. */
export type BillingFormatName = keyof typeof BILLING_FORMATS;

/** The names of the billing formats, for a choice of one. */
export const BILLING_FORMAT_NAMES = Object.keys(BILLING_FORMATS) as BillingFormatName[];

/** The format `name` (a UsageError for an unknown one). */
export function billingFormat(name: string): BillingFormat {
  if (!Object.hasOwn(BILLING_FORMATS, name))
    throw new UsageError(`unknown billing format "${name}" (use ${BILLING_FORMAT_NAMES.join(", ")})`);
  return BILLING_FORMATS[name as BillingFormatName];
}

/** Throws a UsageError when `flags` do not go with format `name`: a flag of another format, a price list or `--out` missing. */
export function checkFormatFlags(name: BillingFormatName, flags: FormatFlags): void {
  const format: BillingFormat = BILLING_FORMATS[name];
  if (format.needsStatement && (!flags.prices || !flags.statement || flags.out === undefined)) {
    throw new UsageError(
      `--format ${name} needs --prices FILE, --statement FILE (issuer, customers, numbering) and --out DIR (--out FILE with --account-id)`,
    );
  }
  if (format.needsPrices !== undefined && !flags.prices)
    throw new UsageError(`--format ${name} needs --prices FILE (${format.needsPrices})`);
  if (format.binary && flags.out === undefined)
    throw new UsageError(`--format ${name} writes a binary file: give --out FILE`);
  const given = (flag: keyof typeof FLAG_RULES) =>
    flag === "detail" ? flags.detail !== undefined : flags[flag] === true;
  for (const flag of ["detail", "hourly", "perAccount"] as const) {
    if (given(flag) && !format.flags.includes(flag)) throw new UsageError(FLAG_RULES[flag]);
  }
  if (flags.statement && !format.needsStatement && !(name === "xlsx" && flags.perAccount)) {
    throw new UsageError("--statement applies to --format pdf and to the --per-account pack of --format xlsx");
  }
  if (flags.statement && !flags.prices)
    throw new UsageError("--statement needs --prices FILE (a statement shows charges)");
  for (const flag of ["perPeriod", "excel"] as const) {
    if (given(flag) && !format.flags.includes(flag)) throw new UsageError(FLAG_RULES[flag]);
  }
}
