import { BadFileError } from "../base/errors.js";
import type { SourceRoot } from "./types.js";

/** What a consumption path says: whose file, which hour, which root message, which encoding. */
export interface ConsumptionPath {
  /** The `<accountId>` folder: a positive integer below 2^32. */
  accountId: number;
  /** Start of the `<year>/<month>/<day>/<hour>` folder, epoch seconds UTC. */
  hourEpoch: number;
  /** `Account` for `account_capnp.bin`, `CloudSpace` for the controller's `<cloudSpaceId>.bin`. */
  root: SourceRoot;
  /** The cloud space id of a `<cloudSpaceId>.bin` file; null for `account_capnp.bin`. */
  cloudSpaceId: number | null;
  /** True when the name ends in `.packed` (packed Cap'n Proto). */
  packed: boolean;
}

const FILE_NAME = /^(?:account_capnp|(\d{1,10}))\.bin(\.packed)?$/;
/** The separators of a path on this system: `/` only on POSIX (a backslash is part of a name there), either on Windows. */
const SEPARATORS = process.platform === "win32" ? /[\\/]/ : /\//;
const DIGITS = /^\d{1,10}$/;
const MAX_ACCOUNT_ID = 2 ** 32 - 1;

/**
 * Reads the account id and hour from a path ending in
 * `<accountId>/<year>/<month>/<day>/<hour>/account_capnp.bin` (or `<cloudSpaceId>.bin`, either
 * with a `.packed` suffix). Folders before `<accountId>` are ignored; month, day and hour may be
 * unpadded (`2026/11/5/7`) or zero-padded (`2026/11/05/07`). Every date is UTC.
 *
 * Returns null when the path is not a consumption path (another file name, a folder that is not
 * all digits). Throws a BadFileError (`INPUT_BAD_PATH`) naming `displayName` when the folders are
 * digits but impossible: month 13, day 32, February 30, hour 24, year before 1970, or an account
 * id that is not a positive integer below 2^32.
 *
 * Every folder is one name: the path is split at this system's separators only: `/` on POSIX,
 * where `1\2026\10\1\0\account_capnp.bin` is one file name (not a consumption path), never
 * a path to account 1; `/` or `\` on Windows. Zip entry names hold no backslash (the zip
 * reader refuses one).
 *
 * @param path a file path of this system, or a zip entry name
 * @param displayName the name used in errors; default `path`
 */
export function parseConsumptionPath(path: string, displayName: string = path): ConsumptionPath | null {
  const parts = path.split(SEPARATORS);
  if (parts.length < 6) return null;
  const [account, year, month, day, hour, file] = parts.slice(-6) as [string, string, string, string, string, string];
  const name = FILE_NAME.exec(file);
  if (!name) return null;
  if (![account, year, month, day, hour].every((part) => DIGITS.test(part))) return null;

  const bad = (reason: string): never => {
    throw new BadFileError(
      "INPUT_BAD_PATH",
      displayName,
      `${reason} in the path (expected <accountId>/<year>/<month>/<day>/<hour>/${file}, UTC); rename or remove the file`,
    );
  };
  const accountId = Number(account);
  if (accountId < 1 || accountId > MAX_ACCOUNT_ID) bad(`account id ${account} is not a positive integer below 2^32`);
  const [y, m, d, h] = [Number(year), Number(month), Number(day), Number(hour)];
  if (y < 1970 || y > 9999) bad(`year ${year} is impossible`);
  if (m < 1 || m > 12) bad(`month ${month} is impossible`);
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (d < 1 || d > daysInMonth) bad(`day ${day} is impossible in ${y}-${String(m).padStart(2, "0")}`);
  if (h > 23) bad(`hour ${hour} is impossible`);

  return {
    accountId,
    hourEpoch: Date.UTC(y, m - 1, d, h) / 1000,
    root: name[1] === undefined ? "Account" : "CloudSpace",
    cloudSpaceId: name[1] === undefined ? null : Number(name[1]),
    packed: name[2] !== undefined,
  };
}
