/**
 * Every code an error of cloudunits carries (`error.code`), with the exit code the command line
 * gives it and what it means. One place: an error class takes only a code of this catalog whose exit
 * is the class's own (`ErrorCodeWithExit<3>` for a BadFileError), so a code written inline that is
 * not here, or that is here with another exit, fails to compile; the CLI takes its exit code from
 * here (src/cli/exitCode.ts), and test/base/errorCodes.test.ts checks that docs/cli.md's table of
 * error codes lists each with its exit.
 *
 * A new error: add its code here (exit as docs/cli.md's "Exit codes" say), then a row to that table.
 */

/** What the catalog says of one code. */
export interface ErrorCodeInfo {
  /** The process's exit code when the CLI stops on this error (docs/cli.md, "Exit codes"). */
  readonly exit: 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10;
  /** What it means, in a line. */
  readonly meaning: string;
}

/** The catalog of error codes, by code. */
export const ERROR_CODES = {
  // exit 2: bad usage, a bad option or argument
  USAGE: { exit: 2, meaning: "a bad flag, option or argument" },
  AMBIGUOUS_ID: { exit: 2, meaning: "a machine or space id found in several accounts: name the account" },
  AMBIGUOUS_LINE: { exit: 2, meaning: "a line to credit named so that it names several lines of the invoice" },
  BAD_AMOUNT: { exit: 2, meaning: "a payment or credit amount that is not a decimal of the currency, or is 0" },
  BAD_DATE: { exit: 2, meaning: "a payment date that is not a day YYYY-MM-DD, or is after today" },
  BAD_INCLUDE: { exit: 2, meaning: "an unknown or unavailable statistics series" },
  BAD_TIME: { exit: 2, meaning: "a time, day or issue date that cannot be read" },
  BAD_URL: { exit: 2, meaning: "an access point address that is not an http or https URL" },
  CREDIT_EXCEEDS: { exit: 2, meaning: "a credit note of more than remains of its invoice" },
  CURRENCY_CHANGED: { exit: 2, meaning: "an issued invoice's figures now come out in another currency" },
  DB_NOT_DUCKDB: { exit: 2, meaning: "the warehouse file is not a DuckDB database" },
  DB_NOT_WAREHOUSE: { exit: 2, meaning: "a DuckDB database that is not a cloudunits warehouse" },
  DB_OPEN: { exit: 2, meaning: "the warehouse file cannot be opened" },
  FILE_EXISTS: { exit: 2, meaning: "an issued document's file exists with other bytes" },
  INPUT_IS_WAREHOUSE: { exit: 2, meaning: "a warehouse given as an input of files" },
  INPUT_NOT_FOUND: { exit: 2, meaning: "a file named (an input, a price list, a config...) does not exist" },
  ISSUER_DIFFERS: { exit: 2, meaning: "the statement config names another issuer than the register's" },
  ISSUE_DATE_ORDER: { exit: 2, meaning: "an issue date before the last one numbered in its year" },
  LINE_CREDITED: { exit: 2, meaning: "a line of an invoice credited by an earlier credit note" },
  MILLISECOND_EPOCH: { exit: 2, meaning: "epoch milliseconds given where seconds are read" },
  MONTH_RUNNING: { exit: 2, meaning: "invoices asked for a month not over yet" },
  NOT_AN_INVOICE: { exit: 2, meaning: "a payment recorded against a credit note" },
  NOT_A_FILE: { exit: 2, meaning: "an issued document's file name holds a folder or a link" },
  NOT_CORRECTABLE: {
    exit: 2,
    meaning: "a credit note, or an invoice corrected or credited in full already, asked to be corrected or credited",
  },
  NOT_FOUND: { exit: 2, meaning: "the dashboard: a page or file that does not exist (HTTP 404)" },
  NO_STATEMENT: { exit: 2, meaning: "a PDF draft asked of a period with no consumption" },
  NO_TOKEN: { exit: 2, meaning: "CLOUDUNITS_AP_TOKEN is not set for invoices send" },
  NUMBER_TAKEN: { exit: 2, meaning: "numbering patterns that would give a number already given" },
  OUT_NOT_FOLDER: { exit: 2, meaning: "the out folder is a file" },
  SERVE_CLIENT_BUSY: { exit: 2, meaning: "the dashboard: a client with too many pages waiting (HTTP 429)" },
  SERVE_LISTEN: { exit: 2, meaning: "the dashboard cannot listen on its address or port" },
  SERVE_TOKEN: { exit: 2, meaning: "the dashboard's token is too short, or missing off loopback" },
  STATEMENT_CONFIG: { exit: 2, meaning: "a statement config that is incomplete or wrong" },
  STORE_READ_ONLY: { exit: 2, meaning: "an invoice write asked of a store opened read-only" },
  UNITS_NOT_FINITE: { exit: 2, meaning: "a units file whose constants could make a unit infinite" },
  UNKNOWN_ID: { exit: 2, meaning: "an account, space or machine id the inputs or warehouse never held" },
  UNKNOWN_LINE: { exit: 2, meaning: "a line an invoice does not have, to credit" },
  UNKNOWN_NUMBER: { exit: 2, meaning: "a document number the register does not hold" },

  // exit 3: bad input data
  BAD_INPUT: { exit: 3, meaning: "bad input files, each named" },
  CONFLICT: { exit: 3, meaning: "two different files for one account-hour" },
  IMPOSSIBLE_VALUE: { exit: 3, meaning: "NaN, infinite or negative values in fields a computation uses" },
  MISSING_HOURS: { exit: 3, meaning: "hours of the month to invoice that are not held" },
  EMPTY_PERIOD: { exit: 3, meaning: "a period the inputs hold no hour of" },
  NO_HOURS_HELD: { exit: 3, meaning: "forecast of a month the warehouse holds no hour of" },
  DB_CORRUPT: { exit: 3, meaning: "the warehouse file is damaged" },
  INPUT_BAD_NAME: { exit: 3, meaning: "a file or folder name that is not valid UTF-8" },
  INPUT_BAD_PATH: { exit: 3, meaning: "a consumption file at a path that is no account-hour" },
  INPUT_HOUR_TOO_LARGE: { exit: 3, meaning: "one account-hour's files larger than maxAccountHourBytes" },
  INPUT_LINK_OUTSIDE: { exit: 3, meaning: "a symbolic link out of the input folder" },
  INPUT_NOT_A_FILE: { exit: 3, meaning: "an input that is not a regular file" },
  INPUT_TOO_LARGE: { exit: 3, meaning: "a file larger than maxEntryBytes" },
  INPUT_UNREADABLE: { exit: 3, meaning: "a file or folder that cannot be read" },
  ARCHIVE_CHECKSUM: { exit: 3, meaning: "a zip entry whose CRC-32 is not the declared one" },
  ARCHIVE_CORRUPT: { exit: 3, meaning: "a zip archive that cannot be read" },
  ARCHIVE_DUPLICATE: { exit: 3, meaning: "a zip entry name held more than once" },
  ARCHIVE_OVERLAP: { exit: 3, meaning: "zip entries that overlap" },
  ARCHIVE_RATIO: { exit: 3, meaning: "a zip entry compressed beyond the ratio limit (a zip bomb?)" },
  ARCHIVE_SIZE_MISMATCH: { exit: 3, meaning: "a zip entry holding another size than it declares" },
  ARCHIVE_TOO_LARGE: { exit: 3, meaning: "a zip archive beyond the size limit" },
  ARCHIVE_TOO_MANY_ENTRIES: { exit: 3, meaning: "a zip archive with more entries than the limit" },
  ARCHIVE_UNSAFE_NAME: { exit: 3, meaning: "a zip entry name that is absolute or climbs out (..)" },
  FETCH_NO_CONSUMPTION: { exit: 3, meaning: "a downloaded archive with no consumption file" },
  FETCH_WRONG_ACCOUNT: { exit: 3, meaning: "a downloaded archive holding another account" },
  FETCH_WRONG_PERIOD: { exit: 3, meaning: "a downloaded archive holding hours out of the period asked" },
  CAMT_DOCTYPE: { exit: 3, meaning: "a camt.053 statement with a document type declaration" },
  CAMT_MALFORMED: { exit: 3, meaning: "a camt.053 statement that is not well-formed XML" },
  CAMT_NOT_STATEMENT: { exit: 3, meaning: "an XML file that is not a camt.053 statement" },
  CAMT_TOO_LARGE: { exit: 3, meaning: "a camt.053 statement beyond the size limit" },
  CAPNP_SEGMENT_TABLE: { exit: 3, meaning: "Cap'n Proto: no segment, or more than 512" },
  CAPNP_TRUNCATED: { exit: 3, meaning: "Cap'n Proto: the file ends inside the segment table or a segment" },
  CAPNP_TRAILING_BYTES: { exit: 3, meaning: "Cap'n Proto: bytes after the last segment" },
  CAPNP_OUT_OF_BOUNDS: { exit: 3, meaning: "Cap'n Proto: a pointer's target outside its segment" },
  CAPNP_TRAVERSAL_LIMIT: { exit: 3, meaning: "Cap'n Proto: more words read than the traversal limit" },
  CAPNP_EXPANSION_LIMIT: { exit: 3, meaning: "Cap'n Proto: records taking more words than the expansion limit" },
  CAPNP_NESTING_LIMIT: { exit: 3, meaning: "Cap'n Proto: objects nested deeper than the nesting limit" },
  CAPNP_BAD_POINTER: { exit: 3, meaning: "Cap'n Proto: a pointer of the wrong kind, or a missing root" },
  CAPNP_BAD_LIST: { exit: 3, meaning: "Cap'n Proto: a list that cannot hold the schema's structs" },
  CAPNP_BAD_TEXT: { exit: 3, meaning: "Cap'n Proto: a Text that is not a byte list ending in NUL" },
  CAPNP_TEXT_LIMIT: { exit: 3, meaning: "Cap'n Proto: a Text longer than the text limit" },
  CAPNP_PACKED: { exit: 3, meaning: "Cap'n Proto: packed data cut short, or unpacking past the cap" },

  // exit 4: fetch, sync, reconcile or a webhook could not authenticate, download or call
  FETCH_AUTH: { exit: 4, meaning: "the platform refused the credentials" },
  FETCH_BAD_ANSWER: { exit: 4, meaning: "the platform's bill in a shape cloudunits does not know" },
  FETCH_BAD_LIST: { exit: 4, meaning: "the platform's list of accounts or spaces in a shape not known" },
  FETCH_DEADLINE: { exit: 4, meaning: "a request not done within its deadline" },
  FETCH_HTTP: { exit: 4, meaning: "the platform answered an HTTP error" },
  FETCH_NETWORK: { exit: 4, meaning: "the platform could not be reached" },
  FETCH_NOT_JSON: { exit: 4, meaning: "the platform answered something that is not JSON" },
  FETCH_NOT_ZIP: { exit: 4, meaning: "a download that is not a zip archive" },
  FETCH_REDIRECTS: { exit: 4, meaning: "too many redirects" },
  FETCH_REDIRECT_REFUSED: { exit: 4, meaning: "a redirect to another host or scheme, not followed" },
  FETCH_TIMEOUT: { exit: 4, meaning: "no data for the timeout" },
  FETCH_TOO_LARGE: { exit: 4, meaning: "an answer beyond the size limit" },
  FETCH_TRUNCATED: { exit: 4, meaning: "a download that broke off" },
  FETCH_WRITE: { exit: 4, meaning: "a download that could not be written" },
  NOTIFY_HTTP: { exit: 4, meaning: "the webhook answered other than 2xx" },
  NOTIFY_NETWORK: { exit: 4, meaning: "the webhook could not be reached" },
  NOTIFY_TIMEOUT: { exit: 4, meaning: "the webhook did not answer in time" },
  SYNC_INCOMPLETE: { exit: 4, meaning: "some accounts could not be synced, each named" },

  // exit 5 to 10
  RECONCILE_DIFFERS: { exit: 5, meaning: "our bill and the platform's differ beyond the tolerance" },
  DB_BUSY: { exit: 6, meaning: "the warehouse file stayed locked by another process beyond the wait" },
  STALE: { exit: 7, meaning: "status: the warehouse is empty, behind, or has missing or lost hours" },
  ALERTS_ACTIVE: { exit: 7, meaning: "alerts: an alert is active" },
  OVERDUE: { exit: 7, meaning: "invoices overdue: a document is overdue" },
  DELIVERY_FAILED: { exit: 7, meaning: "invoices send: a document was not delivered" },
  DISK_FULL: { exit: 8, meaning: "no space left on the device, or a quota reached" },
  READ_ONLY: { exit: 8, meaning: "the file system is read-only" },
  PERMISSION_DENIED: { exit: 8, meaning: "permission denied" },
  ISSUED_DIFFERS: { exit: 9, meaning: "invoices issue: the warehouse gives other figures for an issued invoice" },
  INVOICES_TO_CORRECT: { exit: 9, meaning: "status: issued invoices the warehouse now disagrees with" },
  REGISTER_BROKEN: { exit: 10, meaning: "the invoice register disagrees with its chain" },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code of the catalog. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes of the catalog whose exit is `Exit`: what an error class of that exit may carry. */
export type ErrorCodeWithExit<Exit extends ErrorCodeInfo["exit"]> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C]["exit"] extends Exit ? C : never;
}[ErrorCode];

/** Whether `code` is a code of the catalog whose exit is `exit` (a code read back from a warehouse, say). */
export function isErrorCodeWithExit<Exit extends ErrorCodeInfo["exit"]>(
  code: string,
  exit: Exit,
): code is ErrorCodeWithExit<Exit> {
  return Object.hasOwn(ERROR_CODES, code) && ERROR_CODES[code as ErrorCode].exit === exit;
}
