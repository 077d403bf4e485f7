import { clockNow } from "../../../base/clock.js";
import { say } from "../../printLines.js";
import { warehouseSubcommand } from "../../warehouseSubcommand.js";
import { paymentLine } from "./paymentLine.js";

const PAY_FLAGS = {
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
} as const;

/** `cloudunits invoices pay`: records a payment of an invoice (a negative amount reverses one). */
export const payCommand = warehouseSubcommand({
  command: "pay",
  describe: "record a payment of an invoice (a negative amount reverses one)",
  options: PAY_FLAGS,
  opens: "to write",
  call: async (argv) => {
    const { recordPayment } = await import("../../../invoices/recordPayment.js");
    const nowEpoch = clockNow();
    return (connection) =>
      recordPayment(connection, {
        number: argv.number,
        amount: argv.amount,
        date: argv.date,
        reference: argv.reference,
        nowEpoch,
      });
  },
  print: (outcome) => say(paymentLine(outcome)),
});
