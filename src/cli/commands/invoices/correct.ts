import { clockNow } from "../../../base/clock.js";
import type { CorrectResult } from "../../../invoices/correctInvoice.js";
import { noteAll, say } from "../../printLines.js";
import { warehouseSubcommand } from "../../warehouseSubcommand.js";
import { DOCUMENT_FLAGS } from "./documentFlags.js";

const CORRECT_FLAGS = {
  number: { type: "string", demandOption: true, requiresArg: true, describe: "the number of the invoice to correct" },
  reason: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "why: printed on the credit note and on the new invoice",
  },
  statement: DOCUMENT_FLAGS.statement,
  prices: DOCUMENT_FLAGS.prices,
  out: DOCUMENT_FLAGS.out,
  "accept-missing": {
    type: "boolean",
    default: false,
    describe:
      "issue the new invoice without hours not held that the original did not accept either (default: exit 3 naming them)",
  },
  "issue-date": {
    ...DOCUMENT_FLAGS["issue-date"],
    describe: "the issue date of the credit note and the new invoice, YYYY-MM-DD (default: today, UTC)",
  },
  units: DOCUMENT_FLAGS.units,
  "cu-rollup": DOCUMENT_FLAGS["cu-rollup"],
} as const;

/** The invoice corrected, the credit note cancelling it and the new invoice, with their files. */
async function printCorrected(result: CorrectResult): Promise<void> {
  const { amountDue, lessPrepaid } = await import("./dueWords.js");
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
    `${o.number} (amount due ${amountDue(o)} ${o.currency}${lessPrepaid(o)}) corrected: credit note ${c.number} (${c.gross}), new invoice ${r.number} (${amountDue(r)}${lessPrepaid(r)})`,
  );
  for (const f of [...result.creditNote.files, ...result.replacement.files]) say(`  ${f.path}`);
}

/** `cloudunits invoices correct`: a credit note cancelling an issued invoice and a new invoice of today's figures. */
export const correctCommand = warehouseSubcommand({
  command: "correct",
  describe:
    "correct an issued invoice: a credit note cancelling it and a new invoice of today's figures, both numbered, the reason on both",
  options: CORRECT_FLAGS,
  opens: "to write",
  call: async (argv) => {
    const { correctInvoice } = await import("../../../invoices/correctInvoice.js");
    return (connection) =>
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
      });
  },
  print: printCorrected,
});
