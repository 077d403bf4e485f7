import { OverdueDocumentsError } from "../../../base/errors.js";
import { clockNow } from "../../../base/clock.js";
import { documentWhose } from "../../../invoices/document/customers.js";
import type { ReceivableEntry } from "../../../invoices/receivables.js";
import { say } from "../../printLines.js";
import { warehouseSubcommand, type FlagsOf } from "../../warehouseSubcommand.js";

const OVERDUE_FLAGS = {
  format: {
    choices: ["text", "json"] as const,
    default: "text" as const,
    describe: "text; json: the overdue documents as invoices list --format json gives them, with daysPastDue",
  },
} as const;

/** The overdue documents as text or JSON; then exit 7 when there is one. */
async function printOverdue(overdue: ReceivableEntry[], argv: FlagsOf<typeof OVERDUE_FLAGS>): Promise<void> {
  const { registerListItem } = await import("../../../invoices/render/registerReport.js");
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
}

/** `cloudunits invoices overdue`: the documents past their due date with something outstanding, longest overdue first. */
export const overdueCommand = warehouseSubcommand({
  command: "overdue",
  describe:
    "the documents past their due date with something outstanding, longest overdue first; exit 7 when there is one",
  options: OVERDUE_FLAGS,
  opens: "read-only",
  call: async () => {
    const { overdueDocuments } = await import("../../../invoices/receivables.js");
    const nowEpoch = clockNow();
    return (connection) => overdueDocuments(connection, nowEpoch);
  },
  print: printOverdue,
});
