import { UsageError } from "../../../base/errors.js";
import { clockNow } from "../../../base/clock.js";
import type { CreditResult } from "../../../invoices/creditInvoice.js";
import { noteAll, say } from "../../printLines.js";
import { warehouseSubcommand, type FlagsOf } from "../../warehouseSubcommand.js";
import { DOCUMENT_FLAGS } from "./documentFlags.js";

const CREDIT_FLAGS = {
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
  statement: DOCUMENT_FLAGS.statement,
  out: {
    ...DOCUMENT_FLAGS.out,
    describe: "the folder the credit note's files go to (<number>.pdf, <number>.xml), made when missing",
  },
  "issue-date": {
    ...DOCUMENT_FLAGS["issue-date"],
    describe:
      "the issue date of the credit note, YYYY-MM-DD: not before the invoice's, not after today (default: today, UTC)",
  },
} as const;

/** What to credit: `--amount` or `--line`s, exactly one of them. */
function creditOf(argv: FlagsOf<typeof CREDIT_FLAGS>): { amount: string } | { lines: string[] } {
  if (argv.amount !== undefined && argv.line === undefined) return { amount: argv.amount };
  if (argv.amount === undefined && argv.line !== undefined) return { lines: argv.line };
  throw new UsageError(
    "give what to credit: --amount X (before tax) or --line UNIT[@PERIOD][@account:ID] (repeat for several)",
  );
}

/** The credit note, what it credited of the invoice and what remains in force, with its files. */
function printCredited(result: CreditResult): void {
  noteAll(result);
  const o = result.invoice.document;
  const c = result.creditNote.entry.document;
  say(
    `credit note ${c.number} of ${o.number}: ${c.gross} ${c.currency} (net ${c.net}, tax ${c.tax}); ` +
      `credited ${result.credited} of ${o.gross}, ${result.remaining} ${o.currency} remains in force`,
  );
  for (const f of result.creditNote.files) say(`  ${f.path}`);
}

/** `cloudunits invoices credit`: a credit note of part of an issued invoice, which stays in force. */
export const creditCommand = warehouseSubcommand({
  command: "credit",
  describe:
    "credit part of an issued invoice: a credit note of an amount before tax or of whole lines, numbered; the invoice stays in force",
  options: CREDIT_FLAGS,
  opens: "to write",
  call: async (argv) => {
    const credit = creditOf(argv);
    const { creditInvoice } = await import("../../../invoices/creditInvoice.js");
    return (connection) =>
      creditInvoice(connection, {
        number: argv.number,
        credit,
        reason: argv.reason,
        statement: argv.statement,
        out: argv.out,
        issueDate: argv.issueDate,
        nowEpoch: clockNow(),
      });
  },
  print: printCredited,
});
