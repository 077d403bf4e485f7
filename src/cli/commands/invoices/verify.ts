import { RegisterBrokenError } from "../../../base/errors.js";
import type { RegisterVerification } from "../../../invoices/register/registerChain.js";
import { say } from "../../printLines.js";
import { warehouseSubcommand, type FlagsOf } from "../../warehouseSubcommand.js";

const VERIFY_FLAGS = {
  head: {
    type: "string",
    requiresArg: true,
    describe:
      "a head printed before (N:SHA256, by verify or list), kept outside the warehouse: the register's first N links must still be it",
  },
} as const;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
const CHAINED_NEXT = "chained when the warehouse is next opened to write (an ingest, a sync, an issue)";

/**
 * What was recorded before the chain (or before payments and deliveries were chained), in a
 * warehouse not opened to write since: nothing to verify those against yet.
 */
function unchainedProblems(v: RegisterVerification): string[] {
  const unchained =
    !v.chained && v.records > 0
      ? [
          `${v.records} document${v.records === 1 ? " was" : "s were"} issued before the register was chained: ${CHAINED_NEXT}`,
        ]
      : [];
  const later = v.chained
    ? [
        v.unchained.payment === undefined ? "" : plural(v.unchained.payment, "payment"),
        v.unchained.delivery === undefined ? "" : plural(v.unchained.delivery, "delivery attempt"),
      ].filter((t) => t !== "")
    : [];
  if (later.length > 0) unchained.push(`${later.join(" and ")} recorded before they were chained: ${CHAINED_NEXT}`);
  return unchained;
}

/** What the register holds and that it verified, then its head; or its problems, then exit 10. */
async function printVerified(v: RegisterVerification, argv: FlagsOf<typeof VERIFY_FLAGS>): Promise<void> {
  const problems = [...v.problems, ...unchainedProblems(v)];
  for (const problem of problems) say(problem);
  if (problems.length > 0) throw new RegisterBrokenError(problems, true);
  const { parseHead } = await import("../../../invoices/register/registerChain.js");
  const others = [
    v.held.payment > 0 ? plural(v.held.payment, "payment") : "",
    v.held.delivery > 0 ? plural(v.held.delivery, "delivery attempt") : "",
  ].filter((t) => t !== "");
  const what = `${plural(v.records, "document")} in ${plural(v.chains, "sequence")}${others.length === 0 ? "" : `, ${others.join(" and ")},`}`;
  say(
    `${what} verified: every one as ${others.length === 0 ? "issued" : "recorded"}, its files byte for byte, no number missing${argv.head === undefined ? "" : `; its first ${parseHead(argv.head)!.links} links are those of the head kept`}`,
  );
  say(v.head === undefined ? "no document issued yet" : `register head ${v.head}`);
}

/** `cloudunits invoices verify`: verifies the register against its chain and prints the head to keep outside the warehouse. */
export const verifyCommand = warehouseSubcommand({
  command: "verify",
  describe:
    "verify the register against its chain: every document and file as issued, every payment and delivery attempt as recorded, no number missing; prints the head to keep outside the warehouse",
  options: VERIFY_FLAGS,
  opens: "read-only",
  call: async (argv) => {
    const { verifyRegister } = await import("../../../invoices/register/registerChain.js");
    return (connection) => verifyRegister(connection, { kept: argv.head });
  },
  print: printVerified,
});
