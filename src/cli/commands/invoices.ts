import type { Argv, CommandModule } from "yargs";
import { documentWhose } from "../../invoices/document/customers.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { PaymentOutcome } from "../../invoices/recordPayment.js";
import { flagWords } from "../flagWords.js";
import { DeliveryFailedError, OverdueDocumentsError, UsageError } from "../../base/errors.js";
import { WAIT_OPTION, waitOf, WAREHOUSE_OPTION } from "../inputs.js";
import { clockNow } from "../../base/clock.js";
import { commandLine } from "./index.js";

const FILES = {
  statement: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe:
      "the statement config (YAML or JSON): issuer, customers and their taxes, numbering patterns, payment terms",
  },
  prices: { type: "string", demandOption: true, requiresArg: true, describe: "the price list (YAML or JSON)" },
  out: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe:
      "the folder the documents' files go to (<number>.pdf, <number>.xml), made when missing; a file there is never overwritten",
  },
  units: {
    type: "string",
    requiresArg: true,
    describe: "a units file overriding the published constants (recorded with the invoice)",
  },
  "cu-rollup": {
    choices: ["aggregate", "sum"] as const,
    default: "aggregate" as const,
    describe: "CU of an account from its own totals (aggregate) or the sum of its machines' CU",
  },
  "accept-missing": {
    type: "boolean",
    default: false,
    describe:
      "issue accounts whose hours of the month are not all held: the hours are recorded and printed on the invoice (default: exit 3 naming them)",
  },
  "issue-date": {
    type: "string",
    requiresArg: true,
    describe: "the issue date, YYYY-MM-DD (default: the config's issueDate, else today, UTC)",
  },
  db: WAREHOUSE_OPTION,
  wait: WAIT_OPTION,
} as const;

const issueOptions = {
  db: FILES.db,
  month: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "the month to issue, YYYY-MM (UTC): it must have ended",
  },
  statement: FILES.statement,
  prices: FILES.prices,
  out: FILES.out,
  "account-id": {
    type: "number",
    array: true,
    nargs: 1,
    describe: "only this account (repeat for several; default: every account with hours in the month)",
  },
  "accept-missing": FILES["accept-missing"],
  "issue-date": FILES["issue-date"],
  units: FILES.units,
  "cu-rollup": FILES["cu-rollup"],
  wait: FILES.wait,
} as const;

const correctOptions = {
  db: FILES.db,
  number: { type: "string", demandOption: true, requiresArg: true, describe: "the number of the invoice to correct" },
  reason: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "why: printed on the credit note and on the new invoice",
  },
  statement: FILES.statement,
  prices: FILES.prices,
  out: FILES.out,
  "accept-missing": {
    type: "boolean",
    default: false,
    describe:
      "issue the new invoice without hours not held that the original did not accept either (default: exit 3 naming them)",
  },
  "issue-date": {
    ...FILES["issue-date"],
    describe: "the issue date of the credit note and the new invoice, YYYY-MM-DD (default: today, UTC)",
  },
  units: FILES.units,
  "cu-rollup": FILES["cu-rollup"],
  wait: FILES.wait,
} as const;

const creditOptions = {
  db: FILES.db,
  number: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "the number of the invoice to credit in part (it stays in force)",
  },
  amount: {
    type: "string",
    requiresArg: true,
    conflicts: "line",
    describe:
      "an amount to credit BEFORE TAX (net), in the invoice's currency: spread over its VAT rates in proportion to their net, VAT added per rate",
  },
  line: {
    type: "string",
    array: true,
    nargs: 1,
    conflicts: "amount",
    describe:
      "a whole line to credit: its unit (CU), or UNIT@YYYY-MM-DD (the first day of its price period) when the unit has a line per price period, then @account:ID when the unit has a line in several accounts (CU@account:7101; repeat for several)",
  },
  reason: { type: "string", demandOption: true, requiresArg: true, describe: "why: printed on the credit note" },
  statement: FILES.statement,
  out: {
    ...FILES.out,
    describe: "the folder the credit note's files go to (<number>.pdf, <number>.xml), made when missing",
  },
  "issue-date": {
    ...FILES["issue-date"],
    describe:
      "the issue date of the credit note, YYYY-MM-DD: not before the invoice's, not after today (default: today, UTC)",
  },
  wait: FILES.wait,
} as const;

const listOptions = {
  db: FILES.db,
  month: {
    type: "string",
    requiresArg: true,
    describe: "only the documents of this month's period, YYYY-MM (default: every document)",
  },
  format: {
    choices: ["text", "json", "csv"] as const,
    default: "text" as const,
    describe: "text; json: an array, one object per document, oldest first; csv",
  },
  wait: FILES.wait,
} as const;

const creditsOptions = {
  db: FILES.db,
  customer: { type: "string", requiresArg: true, describe: "only this customer's credits (its id: the account id)" },
  format: {
    choices: ["text", "json"] as const,
    default: "text" as const,
    describe: "text; json: an array, one object per movement, oldest first, with the credit's balance after it",
  },
  wait: FILES.wait,
} as const;

const showOptions = {
  db: FILES.db,
  number: { type: "string", demandOption: true, requiresArg: true, describe: "the number of the document" },
  out: {
    ...FILES.out,
    describe:
      "the folder its files go to, as issued, byte for byte (made when missing; a file with other bytes is never overwritten: exit 2)",
  },
  wait: FILES.wait,
} as const;

const payOptions = {
  db: FILES.db,
  number: { type: "string", demandOption: true, requiresArg: true, describe: "the number of the invoice paid" },
  amount: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "the amount paid, in the invoice's currency (at most its decimals); negative reverses a payment",
  },
  date: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "the day it was paid, YYYY-MM-DD (not after today, UTC)",
  },
  reference: { type: "string", requiresArg: true, describe: "what the payer quoted, or a note (recorded with it)" },
  wait: FILES.wait,
} as const;

const paymentsOptions = {
  db: FILES.db,
  camt: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "an ISO 20022 camt.053 bank statement (XML): its credits that name an invoice are recorded once each",
  },
  wait: FILES.wait,
} as const;

const overdueOptions = {
  db: FILES.db,
  format: {
    choices: ["text", "json"] as const,
    default: "text" as const,
    describe: "text; json: the overdue documents as invoices list --format json gives them, with daysPastDue",
  },
  wait: FILES.wait,
} as const;

const sendOptions = {
  db: FILES.db,
  to: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "the access point's endpoint (http or https URL); the bearer token is read from CLOUDUNITS_AP_TOKEN",
  },
  number: {
    type: "string",
    array: true,
    nargs: 1,
    describe: "only this document (repeat for several; default: every document not yet delivered)",
  },
  timeout: { type: "number", default: 30, describe: "seconds to wait for the access point's answer to one document" },
  wait: FILES.wait,
} as const;

const verifyOptions = {
  db: FILES.db,
  head: {
    type: "string",
    requiresArg: true,
    describe:
      "a head printed before (N:SHA256, by verify or list), kept outside the warehouse: the register's first N links must still be it",
  },
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
interface CreditArgs extends WarehouseArgs {
  number: string;
  amount?: string;
  line?: string[];
  reason: string;
  statement: string;
  out: string;
  issueDate?: string;
}
interface ListArgs extends WarehouseArgs {
  month?: string;
  format: "text" | "json" | "csv";
}
interface CreditsArgs extends WarehouseArgs {
  customer?: string;
  format: "text" | "json";
}
interface VerifyArgs extends WarehouseArgs {
  head?: string;
}
interface ShowArgs extends WarehouseArgs {
  number: string;
  out: string;
}

interface PayArgs extends WarehouseArgs {
  number: string;
  amount: string;
  date: string;
  reference?: string;
}
interface PaymentsArgs extends WarehouseArgs {
  camt: string;
}
interface OverdueArgs extends WarehouseArgs {
  format: "text" | "json";
}
interface SendArgs extends WarehouseArgs {
  to: string;
  number?: string[];
  timeout: number;
}

/** Runs `fn` on the warehouse of `--db`, opened to write (issuing) or read-only (reading the register), closed after. */
async function withDatabase<R>(
  argv: WarehouseArgs,
  write: boolean,
  fn: (connection: DuckDBConnection) => Promise<R>,
): Promise<R> {
  const { openDatabaseFile } = await import("../../store/openDatabaseFile.js");
  // an empty warehouse made here would have nothing to issue
  const { instance, connection } = await openDatabaseFile(argv.db, {
    readOnly: !write,
    create: false,
    waitSeconds: waitOf(argv),
  });
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
  describe:
    "number and record the invoices of an ended month, and write their files (again, byte for byte, when issued before)",
  builder: (yargs) => yargs.options(issueOptions) as unknown as Argv<IssueArgs>,
  handler: async (argv) => {
    const accountIds = argv.accountId?.map((id) => {
      if (!Number.isSafeInteger(id)) throw new UsageError(`bad --account-id: ${id}`);
      return id;
    });
    const { issueInvoices } = await import("../../invoices/issueInvoices.js");
    const { formatHours } = await import("../../sync/formatHours.js");
    const result = await withDatabase(argv, true, (connection) =>
      issueInvoices(connection, {
        month: argv.month,
        statement: argv.statement,
        prices: argv.prices,
        out: argv.out,
        units: argv.units,
        cuRollup: argv.cuRollup,
        accountIds,
        acceptMissing: argv.acceptMissing,
        issueDate: argv.issueDate,
        nowEpoch: clockNow(),
      }),
    );
    noteAll(result);
    for (const {
      entry: { document: d },
      files,
    } of result.issued) {
      say(
        `issued ${d.number} (${documentWhose(d)}, ${d.issueDate}): amount due ${d.gross} ${d.currency} (net ${d.net}, tax ${d.tax}): ${files.map((f) => f.path).join(", ")}`,
      );
      if (d.missingHours.length > 0)
        note(
          `${d.number} (${documentWhose(d)}): issued without ${d.missingHours.length} hour${d.missingHours.length === 1 ? "" : "s"} not held, recorded and printed on it: ${formatHours(d.missingHours)}`,
        );
    }
    for (const {
      entry: { document: d },
      files,
    } of result.reissued) {
      const wrote = files.some((f) => f.written);
      say(
        `${d.number} (${d.kind === "invoice" ? "invoice" : "credit note"}, ${documentWhose(d)}) was issued on ${d.issueDate}: ${wrote ? "its files written again from the register" : "its files are in place"}`,
      );
    }
    if (result.issued.length + result.reissued.length === 0) say(`${argv.month}: no account to invoice`);
  },
};

const correctCommand: CommandModule<object, CorrectArgs> = {
  command: "correct",
  describe:
    "correct an issued invoice: a credit note cancelling it and a new invoice of today's figures, both numbered, the reason on both",
  builder: (yargs) => yargs.options(correctOptions) as unknown as Argv<CorrectArgs>,
  handler: async (argv) => {
    const { correctInvoice } = await import("../../invoices/correctInvoice.js");
    const result = await withDatabase(argv, true, (connection) =>
      correctInvoice(connection, {
        number: argv.number,
        reason: argv.reason,
        statement: argv.statement,
        prices: argv.prices,
        out: argv.out,
        units: argv.units,
        cuRollup: argv.cuRollup,
        acceptMissing: argv.acceptMissing,
        issueDate: argv.issueDate,
        nowEpoch: clockNow(),
      }),
    );
    noteAll(result);
    const {
      corrected: { document: o },
      creditNote: {
        entry: { document: c },
      },
      replacement: {
        entry: { document: r },
      },
    } = result;
    say(
      `${o.number} (amount due ${o.gross} ${o.currency}) corrected: credit note ${c.number} (${c.gross}), new invoice ${r.number} (${r.gross})`,
    );
    for (const f of [...result.creditNote.files, ...result.replacement.files]) say(`  ${f.path}`);
  },
};

const creditCommand: CommandModule<object, CreditArgs> = {
  command: "credit",
  describe:
    "credit part of an issued invoice: a credit note of an amount before tax or of whole lines, numbered; the invoice stays in force",
  builder: (yargs) => yargs.options(creditOptions) as unknown as Argv<CreditArgs>,
  handler: async (argv) => {
    if ((argv.amount === undefined) === (argv.line === undefined))
      throw new UsageError(
        "give what to credit: --amount X (before tax) or --line UNIT[@PERIOD][@account:ID] (repeat for several)",
      );
    const { creditInvoice } = await import("../../invoices/creditInvoice.js");
    const result = await withDatabase(argv, true, (connection) =>
      creditInvoice(connection, {
        number: argv.number,
        credit: argv.amount !== undefined ? { amount: argv.amount } : { lines: argv.line! },
        reason: argv.reason,
        statement: argv.statement,
        out: argv.out,
        issueDate: argv.issueDate,
        nowEpoch: clockNow(),
      }),
    );
    noteAll(result);
    const o = result.invoice.document;
    const c = result.creditNote.entry.document;
    say(
      `credit note ${c.number} of ${o.number}: ${c.gross} ${c.currency} (net ${c.net}, tax ${c.tax}); ` +
        `credited ${result.credited} of ${o.gross}, ${result.remaining} ${o.currency} remains in force`,
    );
    for (const f of result.creditNote.files) say(`  ${f.path}`);
  },
};

const listCommand: CommandModule<object, ListArgs> = {
  command: "list",
  describe: "the register: every invoice and credit note issued, oldest first, with amounts, corrections and files",
  builder: (yargs) => yargs.options(listOptions) as unknown as Argv<ListArgs>,
  handler: async (argv) => {
    const { monthPeriod } = await import("../../base/time.js");
    const { verifiedReceivables } = await import("../../invoices/receivables.js");
    const { registerToCsv, registerToJson, registerToText } = await import("../../invoices/render/registerReport.js");
    const period = argv.month === undefined ? undefined : monthPeriod(argv.month);
    const nowEpoch = clockNow();
    const { entries, head } = await withDatabase(argv, false, (connection) =>
      verifiedReceivables(connection, period === undefined ? {} : { periodStartsIn: period }, nowEpoch),
    );
    const format = { text: registerToText, json: registerToJson, csv: registerToCsv }[argv.format];
    process.stdout.write(format(entries));
    // the head of the whole register, to keep outside the warehouse (text: its last line; json and csv keep their shape)
    if (head !== undefined) (argv.format === "text" ? say : note)(`register head ${head}`);
  },
};

const creditsCommand: CommandModule<object, CreditsArgs> = {
  command: "credits",
  describe:
    "prepaid credit: each movement (granted, consumed, given back, expired), oldest first, with the balance after it",
  builder: (yargs) => yargs.options(creditsOptions) as unknown as Argv<CreditsArgs>,
  handler: async (argv) => {
    const { creditStatement, creditStatementText } = await import("../../invoices/contracts/creditBalances.js");
    const lines = await withDatabase(argv, false, (connection) =>
      creditStatement(connection, argv.customer === undefined ? {} : { customerId: String(argv.customer) }),
    );
    process.stdout.write(argv.format === "json" ? `${JSON.stringify(lines, null, 2)}\n` : creditStatementText(lines));
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
    for (const f of await writeIssuedFiles(argv.out, files))
      say(`${f.path}${f.written ? "" : " (in place, the same bytes)"}`);
  },
};

const FIT_WORDS = {
  exact: "paid in full",
  partial: "a partial payment",
  over: "an over-payment",
  reversal: "a reversal",
} as const;
const fitLine = (p: PaymentOutcome) =>
  `${p.number}: ${p.amount} ${p.currency} recorded, ${FIT_WORDS[p.fit]}` +
  (String(p.outstanding).startsWith("-")
    ? `: paid ${String(p.outstanding).slice(1)} ${p.currency} too much`
    : p.fit === "exact"
      ? ""
      : `: ${p.outstanding} ${p.currency} outstanding`);

const payCommand: CommandModule<object, PayArgs> = {
  command: "pay",
  describe: "record a payment of an invoice (a negative amount reverses one)",
  builder: (yargs) => yargs.options(payOptions) as unknown as Argv<PayArgs>,
  handler: async (argv) => {
    const { recordPayment } = await import("../../invoices/recordPayment.js");
    const nowEpoch = clockNow();
    const outcome = await withDatabase(argv, true, (connection) =>
      recordPayment(connection, {
        number: argv.number,
        amount: argv.amount,
        date: argv.date,
        reference: argv.reference,
        nowEpoch,
      }),
    );
    say(fitLine(outcome));
  },
};

const paymentsCommand: CommandModule<object, PaymentsArgs> = {
  command: "payments",
  describe:
    "record the payments of a camt.053 bank statement: credits matched by payment reference, else by invoice number; each entry once",
  builder: (yargs) => yargs.options(paymentsOptions) as unknown as Argv<PaymentsArgs>,
  handler: async (argv) => {
    const { importStatement } = await import("../../invoices/importStatement.js");
    const nowEpoch = clockNow();
    const result = await withDatabase(argv, true, (connection) => importStatement(connection, argv.camt, nowEpoch));
    for (const p of result.recorded)
      say(
        `${fitLine(p)} (entry ${p.bankReference} of ${p.date}, matched by ${p.matchedBy === "reference" ? "payment reference" : "invoice number"})`,
      );
    for (const u of result.unmatched)
      say(
        `unmatched: entry ${u.bankReference ?? "(no reference)"} of ${u.date}, ${u.amount} ${u.currency}, "${u.remittance}": ${flagWords(u.reason)}`,
      );
    say(
      `${argv.camt}: ${result.recorded.length} payment${result.recorded.length === 1 ? "" : "s"} recorded, ${result.alreadyRecorded} recorded before, ` +
        `${result.unmatched.length} unmatched, ${result.ignored} debit${result.ignored === 1 ? "" : "s"}, reversal${result.ignored === 1 ? "" : "s"} or pending entr${result.ignored === 1 ? "y" : "ies"} left alone`,
    );
  },
};

const overdueCommand: CommandModule<object, OverdueArgs> = {
  command: "overdue",
  describe:
    "the documents past their due date with something outstanding, longest overdue first; exit 7 when there is one",
  builder: (yargs) => yargs.options(overdueOptions) as unknown as Argv<OverdueArgs>,
  handler: async (argv) => {
    const { overdueDocuments } = await import("../../invoices/receivables.js");
    const { registerListItem } = await import("../../invoices/render/registerReport.js");
    const nowEpoch = clockNow();
    const overdue = await withDatabase(argv, false, (connection) => overdueDocuments(connection, nowEpoch));
    if (argv.format === "json")
      process.stdout.write(
        `${JSON.stringify(
          overdue.map((e) => ({ ...registerListItem(e), daysPastDue: e.receivable.daysPastDue })),
          null,
          2,
        )}\n`,
      );
    else if (overdue.length === 0) say("no document is overdue");
    else {
      for (const { document: d, receivable: r } of overdue) {
        say(
          `${d.number}  ${documentWhose(d)}  ${d.customer.legalName}  due ${r.dueDate}  ${r.daysPastDue} day${r.daysPastDue === 1 ? "" : "s"} overdue  ${r.outstanding} ${d.currency} outstanding of ${d.gross}`,
        );
      }
    }
    if (overdue.length > 0) throw new OverdueDocumentsError(overdue.length);
  },
};

const sendCommand: CommandModule<object, SendArgs> = {
  command: "send",
  describe:
    "deliver the documents' e-invoices to a Peppol access point, each attempt recorded; a delivered document is never sent again",
  builder: (yargs) => yargs.options(sendOptions) as unknown as Argv<SendArgs>,
  handler: async (argv) => {
    const token = process.env.CLOUDUNITS_AP_TOKEN ?? "";
    if (token === "")
      throw new UsageError("set CLOUDUNITS_AP_TOKEN to the access point's bearer token (it is sent, never printed)", {
        code: "NO_TOKEN",
      });
    if (!(argv.timeout > 0)) throw new UsageError(`--timeout ${argv.timeout}: give seconds above 0`);
    const { sendDocuments } = await import("../../invoices/sendDocuments.js");
    const result = await withDatabase(argv, true, (connection) =>
      sendDocuments(connection, {
        to: argv.to,
        token,
        numbers: argv.number,
        timeoutMs: argv.timeout * 1000,
        onAttempt: (a) =>
          say(
            a.delivered
              ? `${a.number}: delivered (HTTP ${a.httpStatus}${a.messageId ? `, message ${a.messageId}` : ""})`
              : `${a.number}: not delivered: ${a.error}`,
          ),
      }),
    );
    for (const h of [...result.held, ...result.withoutXml]) say(`${h.number}: not sent: ${h.reason}`);
    const delivered = result.attempts.filter((a) => a.delivered).length;
    say(
      `${delivered} delivered, ${result.attempts.length - delivered} failed, ${result.held.length} held, ${result.alreadyDelivered.length} delivered before`,
    );
    const failed = [
      ...result.attempts.filter((a) => !a.delivered).map((a) => a.number),
      ...result.held.map((h) => h.number),
    ];
    if (failed.length > 0) throw new DeliveryFailedError(failed);
  },
};

const verifyCommand: CommandModule<object, VerifyArgs> = {
  command: "verify",
  describe:
    "verify the register against its chain: every document and file as issued, every payment and delivery attempt as recorded, no number missing; prints the head to keep outside the warehouse",
  builder: (yargs) => yargs.options(verifyOptions) as unknown as Argv<VerifyArgs>,
  handler: async (argv) => {
    const { parseHead, verifyRegister } = await import("../../invoices/register/registerChain.js");
    const { RegisterBrokenError } = await import("../../base/errors.js");
    const v = await withDatabase(argv, false, (connection) => verifyRegister(connection, { kept: argv.head }));
    const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
    // a register made before the chain (or before payments and deliveries were chained), not opened to write since: nothing to verify those against yet
    const unchained =
      !v.chained && v.records > 0
        ? [
            `${v.records} document${v.records === 1 ? " was" : "s were"} issued before the register was chained: chained when the warehouse is next opened to write (an ingest, a sync, an issue)`,
          ]
        : [];
    const later = v.chained
      ? [
          v.unchained.payment === undefined ? "" : plural(v.unchained.payment, "payment"),
          v.unchained.delivery === undefined ? "" : plural(v.unchained.delivery, "delivery attempt"),
        ].filter((t) => t !== "")
      : [];
    if (later.length > 0)
      unchained.push(
        `${later.join(" and ")} recorded before they were chained: chained when the warehouse is next opened to write (an ingest, a sync, an issue)`,
      );
    const problems = [...v.problems, ...unchained];
    for (const problem of problems) say(problem);
    if (problems.length > 0) throw new RegisterBrokenError(problems, true);
    const others = [
      v.held.payment > 0 ? plural(v.held.payment, "payment") : "",
      v.held.delivery > 0 ? plural(v.held.delivery, "delivery attempt") : "",
    ].filter((t) => t !== "");
    const what = `${plural(v.records, "document")} in ${plural(v.chains, "sequence")}${others.length === 0 ? "" : `, ${others.join(" and ")},`}`;
    say(
      `${what} verified: every one as ${others.length === 0 ? "issued" : "recorded"}, its files byte for byte, no number missing${argv.head === undefined ? "" : `; its first ${parseHead(argv.head)!.links} links are those of the head kept`}`,
    );
    say(v.head === undefined ? "no document issued yet" : `register head ${v.head}`);
  },
};

/** `cloudunits invoices issue|correct|credit|list|show|verify|pay|payments|overdue|send`: the invoice register and its receivables (docs/billing.md). */
export const invoicesCommand: CommandModule = {
  ...commandLine("invoices"),
  builder: (yargs) =>
    yargs
      .command(issueCommand as CommandModule)
      .command(correctCommand as CommandModule)
      .command(creditCommand as CommandModule)
      .command(listCommand as CommandModule)
      .command(showCommand as CommandModule)
      .command(verifyCommand as CommandModule)
      .command(payCommand as CommandModule)
      .command(paymentsCommand as CommandModule)
      .command(overdueCommand as CommandModule)
      .command(sendCommand as CommandModule)
      .command(creditsCommand as CommandModule)
      .demandCommand(
        1,
        "name what to do: issue, correct, credit, list, show, verify, pay, payments, overdue, send or credits",
      ),
  handler: () => {},
};
