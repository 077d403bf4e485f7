/** The flags of the subcommands that issue documents (issue, correct, credit) or write their files (show). */
export const DOCUMENT_FLAGS = {
  statement: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe:
      "the statement config (YAML or JSON): issuer, customers and their taxes, numbering patterns, payment terms",
  },
  prices: { type: "string", demandOption: true, requiresArg: true, describe: "the price list (YAML or JSON)" },
  out: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe:
      "the folder the documents' files go to (<number>.pdf, <number>.xml), made when missing; a file there is never overwritten",
  },
  units: {
    type: "string",
    requiresArg: true,
    describe: "a units file overriding the published constants (recorded with the invoice)",
  },
  "cu-rollup": {
    choices: ["aggregate", "sum"] as const,
    default: "aggregate" as const,
    describe: "CU of an account from its own totals (aggregate) or the sum of its machines' CU",
  },
  "accept-missing": {
    type: "boolean",
    default: false,
    describe:
      "issue accounts whose hours of the month are not all held: the hours are recorded and printed on the invoice (default: exit 3 naming them)",
  },
  "issue-date": {
    type: "string",
    requiresArg: true,
    describe: "the issue date, YYYY-MM-DD (default: the config's issueDate, else today, UTC)",
  },
} as const;
