import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../base/errors.js";
import type { IssuedFile } from "./register/appendToRegister.js";
import { readRegister, readRegisterFiles, type RegisterEntry, type RegisterFilter } from "./register/readRegister.js";
import { intactRegister } from "./register/registerChain.js";

/** The register's documents a filter selects, and the register's head (`N:SHA256`; undefined for a register with no link yet). */
export interface VerifiedRegister {
  entries: RegisterEntry[];
  head: string | undefined;
}

/**
 * The register's documents (as `readRegister`), once the whole register is verified against its
 * chain: a register that disagrees (a record or a file changed, a document removed) is
 * RegisterBrokenError, and none of its documents is listed or counted.
 */
export async function verifiedRegister(
  connection: DuckDBConnection,
  filter: RegisterFilter = {},
): Promise<VerifiedRegister> {
  const { head } = await intactRegister(connection);
  return { entries: await readRegister(connection, filter), head };
}

/**
 * The files of an issued document, byte for byte as the register keeps them, once the register is
 * verified against its chain (RegisterBrokenError when it disagrees: changed bytes are never handed
 * out as issued). A number not in the register is a UsageError.
 */
export async function issuedFiles(connection: DuckDBConnection, number: string): Promise<IssuedFile[]> {
  const { entries } = await verifiedRegister(connection, { number });
  if (entries.length === 0)
    throw new UsageError(`no document ${number} in the register (invoiceRegister() lists them)`, {
      code: "UNKNOWN_NUMBER",
    });
  return readRegisterFiles(connection, number);
}
