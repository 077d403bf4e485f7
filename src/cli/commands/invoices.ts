import type { CommandModule } from "yargs";
import { commandLine } from "./index.js";
import { correctCommand } from "./invoices/correct.js";
import { creditCommand } from "./invoices/credit.js";
import { creditsCommand } from "./invoices/credits.js";
import { issueCommand } from "./invoices/issue.js";
import { listCommand } from "./invoices/list.js";
import { overdueCommand } from "./invoices/overdue.js";
import { payCommand } from "./invoices/pay.js";
import { paymentsCommand } from "./invoices/payments.js";
import { sendCommand } from "./invoices/send.js";
import { showCommand } from "./invoices/show.js";
import { verifyCommand } from "./invoices/verify.js";

/** The subcommands of `invoices`, in `--help` order; each is a file of src/cli/commands/invoices/. */
const SUBCOMMANDS = [
  issueCommand,
  correctCommand,
  creditCommand,
  listCommand,
  showCommand,
  verifyCommand,
  payCommand,
  paymentsCommand,
  overdueCommand,
  sendCommand,
  creditsCommand,
];

/** `cloudunits invoices issue|correct|credit|list|show|verify|pay|payments|overdue|send|credits`: the invoice register and its receivables (docs/billing.md). */
export const invoicesCommand: CommandModule = {
  ...commandLine("invoices"),
  builder: (yargs) =>
    yargs
      .command(SUBCOMMANDS)
      .demandCommand(
        1,
        "name what to do: issue, correct, credit, list, show, verify, pay, payments, overdue, send or credits",
      ),
  handler: () => {},
};
