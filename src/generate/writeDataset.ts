/**
 * Writes a synthetic data set to disk: a directory tree as the platform's `{billing_dir}`,
 * or a zip archive as `accounts/getConsumption` serves, streaming hour by hour.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import yazl from "yazl";
import type { DecodedAccountHour } from "../capnp/records.js";
import { UsageError } from "../base/errors.js";
import { environmentErrorOf } from "../base/environmentError.js";
import { checkEncodeOptions, encodeAccount, encodeCloudSpace, type EncodeOptions } from "./encodeAccount.js";
import { generateHours, type GenerateOptions } from "./generateHours.js";
import { hourPath } from "./hourPath.js";

/** Where and how to write a data set. */
export interface WriteDatasetOptions extends GenerateOptions, EncodeOptions {
  /** A directory (created if needed) or a `.zip` file (replaced). */
  out: string;
  /** `zip` or `tree`. Default: `zip` when `out` ends with `.zip`, else `tree`. */
  layout?: "tree" | "zip";
  /**
   * Write the controller's per-cloud-space files `<cloudSpaceId>.bin` (root `CloudSpace`)
   * instead of one `account_capnp.bin` (root `Account`) per account-hour. Default false.
   */
  cloudSpaceFiles?: boolean;
  /** Zero-padded month, day and hour directories (`2026/11/05/07`). Default false: unpadded, as the platform writes. */
  padded?: boolean;
  /**
   * Folders before `<accountId>`, e.g. `var/billing` (the service writes zip entries relative
   * to `{billing_dir}`, but other zips may hold leading folders). Default none.
   */
  leadingFolders?: string;
  /** Called after each account-hour is written, with the totals so far. */
  onProgress?: (progress: WriteDatasetResult) => void;
}

/** What `writeDataset` wrote. */
export interface WriteDatasetResult {
  /** Consumption files written. */
  files: number;
  /** Bytes of those files (before zip compression). */
  bytes: number;
  /** Account-hours written (missing hours excluded). */
  accountHours: number;
}

/** One file of an account-hour: its path relative to the data set root, and its bytes. */
interface DatasetFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * Generates the data set of `options` and writes it: `<accountId>/<year>/<month>/<day>/<hour>/`
 * directories (unpadded unless `padded`), one `account_capnp.bin` or one `<cloudSpaceId>.bin`
 * per cloud space in each, with the `.packed` suffix when `packed`. Existing files of the
 * same names are replaced. Memory stays bounded by about two account-hours, whatever the size.
 * Throws a UsageError for a bad option or an `out` it cannot write (an EnvironmentError when the
 * machine refused: a full disk, a read-only file system, permission denied).
 */
export async function writeDataset(options: WriteDatasetOptions): Promise<WriteDatasetResult> {
  const layout = options.layout ?? (options.out.toLowerCase().endsWith(".zip") ? "zip" : "tree");
  if (layout !== "tree" && layout !== "zip") throw new UsageError(`bad layout: ${String(layout)} (use tree or zip)`);
  checkEncodeOptions(options);
  const hours = generateHours(options);
  try {
    await mkdir(layout === "zip" ? dirname(options.out) : options.out, { recursive: true });
    return await (layout === "zip" ? writeZip(options, hours) : writeTree(options, hours));
  } catch (error) {
    const refused = environmentErrorOf(
      error,
      options.out,
      "the files written before it are whole; run again to write the rest",
    );
    if (refused) throw refused;
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== "string" || !code.startsWith("E")) throw error;
    throw new UsageError(`cannot write ${options.out}: ${(error as Error).message} (choose a writable out option)`, {
      cause: error,
    });
  }
}

/** The files of one account-hour. */
function filesOf(hour: DecodedAccountHour, options: WriteDatasetOptions): DatasetFile[] {
  const prefix = options.leadingFolders ? `${options.leadingFolders.replace(/^\/+|\/+$/g, "")}/` : "";
  const dir = prefix + hourPath(hour.accountId, hour.hourEpoch, options.padded);
  const suffix = options.packed ? ".packed" : "";
  if (!options.cloudSpaceFiles) {
    return [{ path: `${dir}/account_capnp.bin${suffix}`, bytes: encodeAccount(hour.account, options) }];
  }
  return hour.account.cloudspaces.map((cs) => ({
    path: `${dir}/${cs.cloudSpaceId}.bin${suffix}`,
    bytes: encodeCloudSpace(cs, options),
  }));
}

async function writeTree(
  options: WriteDatasetOptions,
  hours: Iterable<DecodedAccountHour>,
): Promise<WriteDatasetResult> {
  const result: WriteDatasetResult = { files: 0, bytes: 0, accountHours: 0 };
  const madeDirs = new Set<string>();
  for (const hour of hours) {
    const files = filesOf(hour, options);
    const dir = dirname(join(options.out, files[0]?.path ?? "."));
    if (files.length > 0 && !madeDirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      madeDirs.add(dir);
    }
    await Promise.all(files.map((f) => writeFile(join(options.out, f.path), f.bytes)));
    count(result, files);
    options.onProgress?.({ ...result });
  }
  return result;
}

async function writeZip(
  options: WriteDatasetOptions,
  hours: Iterable<DecodedAccountHour>,
): Promise<WriteDatasetResult> {
  const result: WriteDatasetResult = { files: 0, bytes: 0, accountHours: 0 };
  const zip = new yazl.ZipFile();
  const output = createWriteStream(options.out);
  const written = pipeline(zip.outputStream, output);
  written.catch(() => undefined); // awaited below; this only marks it handled meanwhile
  // Settles once yazl starts to write the last entry added: every earlier entry is then out.
  // Waiting for the previous hour's lets one hour compress while the next is generated.
  let lastPumped: Promise<void> = Promise.resolve();
  let previousHourPumped: Promise<void> = Promise.resolve();
  try {
    for (const hour of hours) {
      const mtime = new Date(hour.hourEpoch * 1000);
      const files = filesOf(hour, options);
      for (const f of files) {
        // yazl keeps every entry's callback to the end: hold the bytes only until they are read.
        // (The closures below must not capture `f`, which holds the bytes too.)
        let bytes: Uint8Array | undefined = f.bytes;
        const entry = { mtime, size: f.bytes.length };
        const path = f.path;
        lastPumped = new Promise((resolve) => {
          zip.addReadStreamLazy(path, entry, (callback) => {
            const chunk = Buffer.from(bytes!.buffer, bytes!.byteOffset, bytes!.length);
            bytes = undefined;
            resolve();
            callback(null, Readable.from([chunk], { objectMode: false }));
          });
        });
      }
      count(result, files);
      options.onProgress?.({ ...result });
      await Promise.race([previousHourPumped, written]);
      previousHourPumped = lastPumped;
      if (output.writableNeedDrain) await Promise.race([once(output, "drain"), written]);
    }
    zip.end();
    await written;
  } catch (error) {
    output.destroy();
    throw error;
  }
  return result;
}

function count(result: WriteDatasetResult, files: DatasetFile[]): void {
  result.files += files.length;
  result.bytes += files.reduce((sum, f) => sum + f.bytes.length, 0);
  result.accountHours++;
}
