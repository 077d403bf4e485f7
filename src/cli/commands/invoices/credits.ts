import type { CreditStatementLine } from "../../../invoices/contracts/creditBalances.js";
import { warehouseSubcommand, type FlagsOf } from "../../warehouseSubcommand.js";

const CREDITS_FLAGS = {
  customer: {
    type: "string",
    requiresArg: true,
    describe: "only this customer's credits (its id: the account id, or the id of a customer of several accounts)",
  },
  format: {
    choices: ["text", "json"] as const,
    default: "text" as const,
    describe: "text; json: an array, one object per movement, oldest first, with the credit's balance after it",
  },
} as const;

/** The credit movements, as text or as a JSON array. */
async function printCredits(lines: CreditStatementLine[], argv: FlagsOf<typeof CREDITS_FLAGS>): Promise<void> {
  const { creditStatementText } = await import("../../../invoices/contracts/creditBalances.js");
  process.stdout.write(argv.format === "json" ? `${JSON.stringify(lines, null, 2)}\n` : creditStatementText(lines));
}

/** `cloudunits invoices credits`: each movement of prepaid credit, oldest first, with the balance after it. */
export const creditsCommand = warehouseSubcommand({
  command: "credits",
  describe:
    "prepaid credit: each movement (granted, consumed, given back, expired), oldest first, with the balance after it",
  options: CREDITS_FLAGS,
  opens: "read-only",
  call: async (argv) => {
    const { creditStatement } = await import("../../../invoices/contracts/creditBalances.js");
    return (connection) =>
      creditStatement(connection, argv.customer === undefined ? {} : { customerId: String(argv.customer) });
  },
  print: printCredits,
});
