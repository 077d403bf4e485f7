/**
 * The library's errors name its options as a script writes them (`skipBad: true`, `waitSeconds: 120`);
 * a command-line user gives flags. Each entry is an option as the library's messages write it and
 * the flag the CLI says instead; `flagWords` rewrites a message for the command line.
 */
export const OPTION_FLAGS: readonly { option: string; flag: string }[] = [
  { option: "skipBad: true", flag: "--skip-bad" },
  { option: "acceptMissing: true", flag: "--accept-missing" },
  { option: "replace: true", flag: "--replace" },
  { option: "waitSeconds: ", flag: "--wait " },
  { option: "issueDate: ", flag: "--issue-date " },
  { option: "reason: ", flag: "--reason " },
  { option: "accountId: ", flag: "--account-id " },
  { option: "db: ", flag: "--db " },
  { option: "the url option", flag: "--url" },
  { option: "bad url", flag: "bad --url" },
  { option: "bad authUrl", flag: "bad --auth-url" },
  { option: "raise timeoutMs", flag: "raise --timeout" },
  { option: "(deadlineMs)", flag: "(--deadline)" },
  { option: "raise deadlineMs", flag: "raise --deadline" },
  { option: "raise maxDownloadBytes", flag: "raise --max-download-mib" },
  { option: "raise maxJsonBytes", flag: "raise --max-json-mib" },
  { option: 'chunk: "day"', flag: "--chunk day" },
  { option: "the prices option", flag: "--prices FILE" },
  { option: "bad per: ", flag: "bad --per " },
  { option: "bad by: ", flag: "bad --by " },
  { option: "bad limit: ", flag: "bad --limit " },
  { option: "bad month: ", flag: "bad --month: " },
  {
    option: "correctInvoice({ number, reason })",
    flag: "`cloudunits invoices correct --number NUMBER --reason TEXT ...`",
  },
  { option: "correctInvoice({ number })", flag: "`invoices correct --number N`" },
  { option: "invoiceRegister() lists them", flag: "cloudunits invoices list --db FILE lists them" },
  { option: "all: invoiceRegister()", flag: "all: cloudunits invoices list" },
  { option: "verifyRegister() names every one", flag: "cloudunits invoices verify names every one" },
  {
    option: "writeStatements() of the bill of month ",
    flag: "cloudunits billing --db FILE --format pdf --prices FILE --statement FILE --out DIR --month ",
  },
  { option: "ingest()", flag: "`cloudunits ingest`" },
  { option: "sync()", flag: "`sync`" },
  { option: "since: T", flag: "--since T" },
  { option: "bad amount: ", flag: "bad --amount " },
  { option: "bad date: ", flag: "bad --date " },
  { option: "bad to: ", flag: "bad --to " },
  { option: "(the out option)", flag: "(--out)" },
  { option: "the out folder ", flag: "--out " },
  { option: "a writable out option", flag: "a writable --out" },
  { option: "writeInvoicePack()", flag: "--per-account" },
  { option: "the units option", flag: "--units" },
  { option: "bad webhook address", flag: "bad --notify address" },
  { option: "the token option", flag: "--token-file" },
  { option: "token: SECRET", flag: "--token-file FILE" },
  { option: "the port option", flag: "--port" },
  { option: "recordPayment()", flag: "invoices pay" },
];

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// an option is a word of its own: not the end of a file name (`x.db: `, `my-db: `, `/srv/db: `) nor of a longer word
const PATTERN = new RegExp(
  OPTION_FLAGS.map(
    ({ option }) =>
      `${/^\w/.test(option) ? "(?<![\\w.\\-/])" : ""}${escaped(option)}${/\w$/.test(option) ? "\\b" : ""}`,
  ).join("|"),
  "g",
);
const FLAG_OF = new Map(OPTION_FLAGS.map(({ option, flag }) => [option, flag]));

/** A library message in the words of the command line: each option named as its flag. */
export function flagWords(message: string): string {
  return message.replace(PATTERN, (option) => FLAG_OF.get(option)!);
}
