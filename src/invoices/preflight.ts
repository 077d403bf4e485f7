import { randomBytes } from "node:crypto";
import { open, rm } from "node:fs/promises";
import { join } from "node:path";
import { environmentErrorOf } from "../base/environmentError.js";
import { checkIssuable, type StatementConfig } from "./document/statementConfig.js";
import { outFolder } from "./writeIssuedFiles.js";
import { checkRates, type RatedInvoice } from "./ratesPreflight.js";

/** What is about to be numbered: under which config, for which accounts, into which folder. */
export interface PreflightRequest {
  config: StatementConfig;
  /** The accounts whose documents are about to be numbered. */
  accountIds: readonly number[];
  /** The `--out` folder their files go to. */
  out: string;
  /** The invoices about to be numbered and their issue date: one in another currency than the accounting one needs its rate. */
  invoices?: readonly RatedInvoice[];
}

/**
 * Everything a document needs before it is given a number, checked while nothing is numbered
 * (a number is never spent on a document that cannot be
 * written in full). The config's own values (rates, patterns and the length of their numbers,
 * electronic addresses, valid text) are checked when it is read (`parseStatementConfig`); the
 * issue date by `issueDateFor`; a name in `out` holding anything but the same file by
 * `recordDocuments` before its commit. Here: the keys the documents of these accounts need under
 * the rules that apply to them (`checkIssuable`: parties, tax, and what Peppol's German rules ask),
 * and `out`, made when missing and written to once. Throws a UsageError (exit 2), or an
 * EnvironmentError (exit 8) when the machine refuses the write.
 */
export async function preflight(request: PreflightRequest): Promise<void> {
  checkIssuable(request.config, request.accountIds);
  checkRates(request.config, request.invoices ?? []);
  await writableFolder(request.out);
}

/** Makes `out` when missing and writes, syncs and removes a file in it, so a folder the files cannot go to is known before a number is given. */
async function writableFolder(out: string): Promise<void> {
  const kept = "nothing was numbered";
  try {
    await outFolder(out);
    const probe = join(out, `.cloudunits-probe.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    const handle = await open(probe, "wx");
    try {
      await handle.write(Buffer.from("probe"));
      await handle.sync();
    } finally {
      await handle.close();
      await rm(probe, { force: true });
    }
  } catch (error) {
    throw environmentErrorOf(error, out, kept) ?? error;
  }
}
