import type { Argv, CommandModule } from "yargs";
import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../../base/errors.js";
import { WAIT_OPTION, waitOf, WAREHOUSE_OPTION } from "../inputs.js";
import { clockNow } from "../../base/clock.js";
import { commandLine } from "./index.js";

const FILES = {
  statement: { type: "string", demandOption: true, requiresArg: true, describe: "the statement config (YAML or JSON): issuer, customers and their taxes, numbering patterns, payment terms" },
  prices: { type: "string", demandOption: true, requiresArg: true, describe: "the price list (YAML or JSON)" },
  out: { type: "string", demandOption: true, requiresArg: true, describe: "the folder the documents' files go to (<number>.pdf, <number>.xml), made when missing; a file there is never overwritten" },
  units: { type: "string", requiresArg: true, describe: "a units file overriding the published constants (recorded with the invoice)" },
  "cu-rollup": { choices: ["aggregate", "sum"] as const, default: "aggregate" as const, describe: "CU of an account from its own totals (aggregate) or the sum of its machines' CU" },
  "accept-missing": { type: "boolean", default: false, describe: "issue accounts whose hours of the month are not all held: the hours are recorded and printed on the invoice (default: exit 3 naming them)" },
  "issue-date": { type: "string", requiresArg: true, describe: "the issue date, YYYY-MM-DD (default: the config's issueDate, else today, UTC)" },
  db: WAREHOUSE_OPTION,
  wait: WAIT_OPTION,
} as const;

const issueOptions = {
  db: FILES.db,
  month: { type: "string", demandOption: true, requiresArg: true, describe: "the month to issue, YYYY-MM (UTC): it must have ended" },
  statement: FILES.statement,
  prices: FILES.prices,
  out: FILES.out,
  "account-id": { type: "number", array: true, nargs: 1, describe: "only this account (repeat for several; default: every account with hours in the month)" },
  "accept-missing": FILES["accept-missing"],
  "issue-date": FILES["issue-date"],
  units: FILES.units,
  "cu-rollup": FILES["cu-rollup"],
  wait: FILES.wait,
} as const;

const correctOptions = {
  db: FILES.db,
  number: { type: "string", demandOption: true, requiresArg: true, describe: "the number of the invoice to correct" },
  reason: { type: "string", demandOption: true, requiresArg: true, describe: "why: printed on the credit note and on the new invoice" },
  statement: FILES.statement,
  prices: FILES.prices,
  out: FILES.out,
  "accept-missing": { type: "boolean", default: false, describe: "issue the new invoice without hours not held that the original did not accept either (default: exit 3 naming them)" },
  "issue-date": { ...FILES["issue-date"], describe: "the issue date of the credit note and the new invoice, YYYY-MM-DD (default: today, UTC)" },
  units: FILES.units,
  "cu-rollup": FILES["cu-rollup"],
  wait: FILES.wait,
} as const;

const listOptions = {
  db: FILES.db,
  month: { type: "string", requiresArg: true, describe: "only the documents of this month's period, YYYY-MM (default: every document)" },
  format: { choices: ["text", "json", "csv"] as const, default: "text" as const, describe: "text; json: an array, one object per document, oldest first; csv" },
  wait: FILES.wait,
} as const;

const showOptions = {
  db: FILES.db,
  number: { type: "string", demandOption: true, requiresArg: true, describe: "the number of the document" },
  out: { ...FILES.out, describe: "the folder its files go to, as issued, byte for byte (made when missing; a file with other bytes is never overwritten: exit 2)" },
  wait: FILES.wait,
} as const;

const verifyOptions = {
  db: FILES.db,
  head: { type: "string", requiresArg: true, describe: "a head printed before (N:SHA256, by verify or list), kept outside the warehouse: the register's first N links must still be it" },
  wait: FILES.wait,
} as const;

interface WarehouseArgs {
  db: string;
  wait?: number;
}
interface FilesArgs extends WarehouseArgs {
  statement: string;
  prices: string;
  out: string;
  units?: string;
  cuRollup: "aggregate" | "sum";
  acceptMissing: boolean;
  issueDate?: string;
}
interface IssueArgs extends FilesArgs {
  month: string;
  accountId?: number[];
}
interface CorrectArgs extends FilesArgs {
  number: string;
  reason: string;
}
interface ListArgs extends WarehouseArgs {
  month?: string;
  format: "text" | "json" | "csv";
}
interface VerifyArgs extends WarehouseArgs {
  head?: string;
}
interface ShowArgs extends WarehouseArgs {
  number: string;
  out: string;
}

/** Runs `fn` on the warehouse of `--db`, opened to write (issuing) or read-only (reading the register), closed after. */
async function withDatabase<R>(argv: WarehouseArgs, write: boolean, fn: (connection: DuckDBConnection) => Promise<R>): Promise<R> {
  const { openDatabaseFile } = await import("../../store/openDatabaseFile.js");
  // an empty warehouse made here would have nothing to issue
  const { instance, connection } = await openDatabaseFile(argv.db, { readOnly: !write, create: false, waitSeconds: waitOf(argv) });
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`cloudunits: ${line}\n`);
/** The config's older keys and what a file could not hold as written, on stderr. */
const noteAll = (result: { notes: string[]; warnings: string[] }) => {
  for (const line of result.notes) note(`note: ${line}`);
  for (const line of result.warnings) note(`warning: ${line}`);
};

const issueCommand: CommandModule<object, IssueArgs> = {
  command: "issue",
  describe: "number and record the invoices of an ended month, and write their files (again, byte for byte, when issued before)",
  builder: (yargs) => yargs.options(issueOptions) as unknown as Argv<IssueArgs>,
  handler: async (argv) => {
    const accountIds = argv.accountId?.map((id) => {
      if (!Number.isSafeInteger(id)) throw new UsageError(`bad --account-id: ${id}`);
      return id;
    });
    const { issueInvoices } = await import("../../invoices/issueInvoices.js");
    const { formatHours } = await import("../../sync/formatHours.js");
    const result = await withDatabase(argv, true, (connection) => issueInvoices(connection, {
      month: argv.month, statement: argv.statement, prices: argv.prices, out: argv.out, units: argv.units, cuRollup: argv.cuRollup,
      accountIds, acceptMissing: argv.acceptMissing, issueDate: argv.issueDate, nowEpoch: clockNow(),
    }));
    noteAll(result);
    for (const { entry: { document: d }, files } of result.issued) {
      say(`issued ${d.number} (account ${d.accountId}, ${d.issueDate}): amount due ${d.gross} ${d.currency} (net ${d.net}, tax ${d.tax}): ${files.map((f) => f.path).join(", ")}`);
      if (d.missingHours.length > 0) note(`${d.number} (account ${d.accountId}): issued without ${d.missingHours.length} hour${d.missingHours.length === 1 ? "" : "s"} not held, recorded and printed on it: ${formatHours(d.missingHours)}`);
    }
    for (const { entry: { document: d }, files } of result.reissued) {
      const wrote = files.some((f) => f.written);
      say(`${d.number} (${d.kind === "invoice" ? "invoice" : "credit note"}, account ${d.accountId}) was issued on ${d.issueDate}: ${wrote ? "its files written again from the register" : "its files are in place"}`);
    }
    if (result.issued.length + result.reissued.length === 0) say(`${argv.month}: no account to invoice`);
  },
};

const correctCommand: CommandModule<object, CorrectArgs> = {
  command: "correct",
  describe: "correct an issued invoice: a credit note cancelling it and a new invoice of today's figures, both numbered, the reason on both",
  builder: (yargs) => yargs.options(correctOptions) as unknown as Argv<CorrectArgs>,
  handler: async (argv) => {
    const { correctInvoice } = await import("../../invoices/correctInvoice.js");
    const result = await withDatabase(argv, true, (connection) => correctInvoice(connection, {
      number: argv.number, reason: argv.reason, statement: argv.statement, prices: argv.prices, out: argv.out, units: argv.units,
      cuRollup: argv.cuRollup, acceptMissing: argv.acceptMissing, issueDate: argv.issueDate, nowEpoch: clockNow(),
    }));
    noteAll(result);
    const { corrected: { document: o }, creditNote: { entry: { document: c } }, replacement: { entry: { document: r } } } = result;
    say(`${o.number} (amount due ${o.gross} ${o.currency}) corrected: credit note ${c.number} (${c.gross}), new invoice ${r.number} (${r.gross})`);
    for (const f of [...result.creditNote.files, ...result.replacement.files]) say(`  ${f.path}`);
  },
};

const listCommand: CommandModule<object, ListArgs> = {
  command: "list",
  describe: "the register: every invoice and credit note issued, oldest first, with amounts, corrections and files",
  builder: (yargs) => yargs.options(listOptions) as unknown as Argv<ListArgs>,
  handler: async (argv) => {
    const { monthPeriod } = await import("../../base/time.js");
    const { verifiedRegister } = await import("../../invoices/verifiedRegister.js");
    const { registerToCsv, registerToJson, registerToText } = await import("../../export/registerReport.js");
    const period = argv.month === undefined ? undefined : monthPeriod(argv.month);
    const { entries, head } = await withDatabase(argv, false, (connection) => verifiedRegister(connection, period === undefined ? {} : { periodStartsIn: period }));
    const format = { text: registerToText, json: registerToJson, csv: registerToCsv }[argv.format];
    process.stdout.write(format(entries));
    // the head of the whole register, to keep outside the warehouse (text: its last line; json and csv keep their shape)
    if (head !== undefined) (argv.format === "text" ? say : note)(`register head ${head}`);
  },
};

const showCommand: CommandModule<object, ShowArgs> = {
  command: "show",
  describe: "write an issued document's files again, byte for byte, from the register",
  builder: (yargs) => yargs.options(showOptions) as unknown as Argv<ShowArgs>,
  handler: async (argv) => {
    const { issuedFiles } = await import("../../invoices/verifiedRegister.js");
    const { writeIssuedFiles } = await import("../../invoices/writeIssuedFiles.js");
    const files = await withDatabase(argv, false, (connection) => issuedFiles(connection, argv.number));
    for (const f of await writeIssuedFiles(argv.out, files)) say(`${f.path}${f.written ? "" : " (in place, the same bytes)"}`);
  },
};

const verifyCommand: CommandModule<object, VerifyArgs> = {
  command: "verify",
  describe: "verify the register against its chain: every document and file as issued, no number missing; prints the head to keep outside the warehouse",
  builder: (yargs) => yargs.options(verifyOptions) as unknown as Argv<VerifyArgs>,
  handler: async (argv) => {
    const { parseHead, verifyRegister } = await import("../../store/registerChain.js");
    const { RegisterBrokenError } = await import("../../base/errors.js");
    const v = await withDatabase(argv, false, (connection) => verifyRegister(connection, { kept: argv.head }));
    // a register made before the chain, not opened to write since: nothing to verify it against yet
    const unchained = !v.chained && v.records > 0
      ? [`${v.records} document${v.records === 1 ? " was" : "s were"} issued before the register was chained: chained when the warehouse is next opened to write (an ingest, a sync, an issue)`]
      : [];
    const problems = [...v.problems, ...unchained];
    for (const problem of problems) say(problem);
    if (problems.length > 0) throw new RegisterBrokenError(problems, true);
    const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
    say(`${plural(v.records, "document")} in ${plural(v.chains, "sequence")} verified: every one as issued, its files byte for byte, no number missing${argv.head === undefined ? "" : `; its first ${parseHead(argv.head)!.links} links are those of the head kept`}`);
    say(v.head === undefined ? "no document issued yet" : `register head ${v.head}`);
  },
};

/** `cloudunits invoices issue|correct|list|show|verify`: the invoice register (docs/billing.md). */
export const invoicesCommand: CommandModule = {
  ...commandLine("invoices"),
  builder: (yargs) => yargs
    .command(issueCommand as CommandModule)
    .command(correctCommand as CommandModule)
    .command(listCommand as CommandModule)
    .command(showCommand as CommandModule)
    .command(verifyCommand as CommandModule)
    .demandCommand(1, "name what to do: issue, correct, list, show or verify"),
  handler: () => {},
};
