import { clockNow } from "../../../base/clock.js";
import type { ReceivableEntry } from "../../../invoices/receivables.js";
import { note, say } from "../../printLines.js";
import { warehouseSubcommand, type FlagsOf } from "../../warehouseSubcommand.js";

const LIST_FLAGS = {
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
} as const;

/** The register's documents in the format asked, then the head of the whole register to keep outside the warehouse. */
async function printRegister(
  { entries, head }: { entries: ReceivableEntry[]; head: string | undefined },
  argv: FlagsOf<typeof LIST_FLAGS>,
): Promise<void> {
  const { registerToCsv, registerToJson, registerToText } = await import("../../../invoices/render/registerReport.js");
  const format = { text: registerToText, json: registerToJson, csv: registerToCsv }[argv.format];
  process.stdout.write(format(entries));
  // the head of the whole register, to keep outside the warehouse (text: its last line; json and csv keep their shape)
  if (head !== undefined) (argv.format === "text" ? say : note)(`register head ${head}`);
}

/** `cloudunits invoices list`: the register, every invoice and credit note issued, oldest first. */
export const listCommand = warehouseSubcommand({
  command: "list",
  describe: "the register: every invoice and credit note issued, oldest first, with amounts, corrections and files",
  options: LIST_FLAGS,
  opens: "read-only",
  call: async (argv) => {
    const { monthPeriod } = await import("../../../base/time.js");
    const { verifiedReceivables } = await import("../../../invoices/receivables.js");
    const period = argv.month === undefined ? undefined : monthPeriod(argv.month);
    const nowEpoch = clockNow();
    return (connection) =>
      verifiedReceivables(connection, period === undefined ? {} : { periodStartsIn: period }, nowEpoch);
  },
  print: printRegister,
});
