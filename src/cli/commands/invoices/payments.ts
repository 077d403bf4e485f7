import { clockNow } from "../../../base/clock.js";
import type { StatementImport } from "../../../invoices/importStatement.js";
import { flagWords } from "../../flagWords.js";
import { say } from "../../printLines.js";
import { warehouseSubcommand, type FlagsOf } from "../../warehouseSubcommand.js";
import { paymentLine } from "./paymentLine.js";

const PAYMENTS_FLAGS = {
  camt: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "an ISO 20022 camt.053 bank statement (XML): its credits that name an invoice are recorded once each",
  },
} as const;

/** Each payment recorded and how it was matched, each credit left unmatched and why, then the counts. */
function printImport(result: StatementImport, argv: FlagsOf<typeof PAYMENTS_FLAGS>): void {
  for (const p of result.recorded)
    say(
      `${paymentLine(p)} (entry ${p.bankReference} of ${p.date}, matched by ${p.matchedBy === "reference" ? "payment reference" : "invoice number"})`,
    );
  for (const u of result.unmatched)
    say(
      `unmatched: entry ${u.bankReference ?? "(no reference)"} of ${u.date}, ${u.amount} ${u.currency}, "${u.remittance}": ${flagWords(u.reason)}`,
    );
  say(
    `${argv.camt}: ${result.recorded.length} payment${result.recorded.length === 1 ? "" : "s"} recorded, ${result.alreadyRecorded} recorded before, ` +
      `${result.unmatched.length} unmatched, ${result.ignored} debit${result.ignored === 1 ? "" : "s"}, reversal${result.ignored === 1 ? "" : "s"} or pending entr${result.ignored === 1 ? "y" : "ies"} left alone`,
  );
}

/** `cloudunits invoices payments`: records the payments of a camt.053 bank statement, each entry once. */
export const paymentsCommand = warehouseSubcommand({
  command: "payments",
  describe:
    "record the payments of a camt.053 bank statement: credits matched by payment reference, else by invoice number; each entry once",
  options: PAYMENTS_FLAGS,
  opens: "to write",
  call: async (argv) => {
    const { importStatement } = await import("../../../invoices/importStatement.js");
    const nowEpoch = clockNow();
    return (connection) => importStatement(connection, argv.camt, nowEpoch);
  },
  print: printImport,
});
