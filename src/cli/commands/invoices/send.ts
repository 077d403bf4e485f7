import { DeliveryFailedError, UsageError } from "../../../base/errors.js";
import type { SendResult } from "../../../invoices/sendDocuments.js";
import { say } from "../../printLines.js";
import { warehouseSubcommand, type FlagsOf } from "../../warehouseSubcommand.js";

const SEND_FLAGS = {
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
} as const;

/** The access point's bearer token, from CLOUDUNITS_AP_TOKEN, once `--timeout` is checked. */
function tokenAndTimeout(argv: FlagsOf<typeof SEND_FLAGS>): string {
  const token = process.env.CLOUDUNITS_AP_TOKEN ?? "";
  if (token === "")
    throw new UsageError("set CLOUDUNITS_AP_TOKEN to the access point's bearer token (it is sent, never printed)", {
      code: "NO_TOKEN",
    });
  if (!(argv.timeout > 0)) throw new UsageError(`--timeout ${argv.timeout}: give seconds above 0`);
  return token;
}

/** The documents not sent and the counts; then exit 7 naming those not delivered. */
function printDelivery(result: SendResult): void {
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
}

/** `cloudunits invoices send`: delivers the documents' e-invoices to a Peppol access point, each attempt recorded. */
export const sendCommand = warehouseSubcommand({
  command: "send",
  describe:
    "deliver the documents' e-invoices to a Peppol access point, each attempt recorded; a delivered document is never sent again",
  options: SEND_FLAGS,
  opens: "to write",
  call: async (argv) => {
    const token = tokenAndTimeout(argv);
    const { sendDocuments } = await import("../../../invoices/sendDocuments.js");
    return (connection) =>
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
      });
  },
  print: printDelivery,
});
