import { UsageError } from "../../../base/errors.js";
import { clockNow } from "../../../base/clock.js";
import { documentWhose } from "../../../invoices/document/customers.js";
import type { IssueResult } from "../../../invoices/issueInvoices.js";
import { note, noteAll, say } from "../../printLines.js";
import { warehouseSubcommand, type FlagsOf } from "../../warehouseSubcommand.js";
import { DOCUMENT_FLAGS } from "./documentFlags.js";

const ISSUE_FLAGS = {
  month: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "the month to issue, YYYY-MM (UTC): it must have ended",
  },
  statement: DOCUMENT_FLAGS.statement,
  prices: DOCUMENT_FLAGS.prices,
  out: DOCUMENT_FLAGS.out,
  "account-id": {
    type: "number",
    array: true,
    nargs: 1,
    describe: "only this account (repeat for several; default: every account with hours in the month)",
  },
  "accept-missing": DOCUMENT_FLAGS["accept-missing"],
  "issue-date": DOCUMENT_FLAGS["issue-date"],
  units: DOCUMENT_FLAGS.units,
  "cu-rollup": DOCUMENT_FLAGS["cu-rollup"],
} as const;

/** The `--account-id`s given, each checked to be a whole number. */
function accountIdsOf(argv: FlagsOf<typeof ISSUE_FLAGS>): number[] | undefined {
  return argv.accountId?.map((id) => {
    if (!Number.isSafeInteger(id)) throw new UsageError(`bad --account-id: ${id}`);
    return id;
  });
}

/** Each document issued now, with its files, and each issued before, whose files were written again or are in place. */
async function printIssued(result: IssueResult, argv: FlagsOf<typeof ISSUE_FLAGS>): Promise<void> {
  const { formatHours } = await import("../../../sync/formatHours.js");
  const { dueWords } = await import("./dueWords.js");
  noteAll(result);
  for (const {
    entry: { document: d },
    files,
  } of result.issued) {
    say(
      `issued ${d.number} (${documentWhose(d)}, ${d.issueDate}): ${dueWords(d)}: ${files.map((f) => f.path).join(", ")}`,
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
}

/** `cloudunits invoices issue`: numbers and records the invoices of an ended month and writes their files. */
export const issueCommand = warehouseSubcommand({
  command: "issue",
  describe:
    "number and record the invoices of an ended month, and write their files (again, byte for byte, when issued before)",
  options: ISSUE_FLAGS,
  opens: "to write",
  call: async (argv) => {
    const accountIds = accountIdsOf(argv);
    const { issueInvoices } = await import("../../../invoices/issueInvoices.js");
    return (connection) =>
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
      });
  },
  print: printIssued,
});
