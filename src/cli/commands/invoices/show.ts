import type { IssuedFile } from "../../../invoices/register/appendToRegister.js";
import { say } from "../../printLines.js";
import { warehouseSubcommand, type FlagsOf } from "../../warehouseSubcommand.js";
import { DOCUMENT_FLAGS } from "./documentFlags.js";

const SHOW_FLAGS = {
  number: { type: "string", demandOption: true, requiresArg: true, describe: "the number of the document" },
  out: {
    ...DOCUMENT_FLAGS.out,
    describe:
      "the folder its files go to, as issued, byte for byte (made when missing; a file with other bytes is never overwritten: exit 2)",
  },
} as const;

/** Writes the document's files into `--out` and prints each, saying which were in place already. */
async function writeAndPrint(files: IssuedFile[], argv: FlagsOf<typeof SHOW_FLAGS>): Promise<void> {
  const { writeIssuedFiles } = await import("../../../invoices/writeIssuedFiles.js");
  for (const f of await writeIssuedFiles(argv.out, files))
    say(`${f.path}${f.written ? "" : " (in place, the same bytes)"}`);
}

/** `cloudunits invoices show`: writes an issued document's files again, byte for byte, from the register. */
export const showCommand = warehouseSubcommand({
  command: "show",
  describe: "write an issued document's files again, byte for byte, from the register",
  options: SHOW_FLAGS,
  opens: "read-only",
  call: async (argv) => {
    const { issuedFiles } = await import("../../../invoices/verifiedRegister.js");
    return (connection) => issuedFiles(connection, argv.number);
  },
  print: writeAndPrint,
});
