import type { CommandModule } from "yargs";
import { INPUTS_POSITIONAL } from "../inputs.js";

/** What the CLI knows of a command before loading it: enough to list it and to pick it. */
export interface CommandLine {
  /** The yargs command string: the name, then the positionals (`billing [inputs..]`). */
  command: string;
  /** One line for `--help`. */
  describe: string;
  /** What `<command> --help` shows under Examples: command lines that run as written, each with what it does. */
  examples: readonly Example[];
}

/** An example of a command's `--help`: the line as a user types it, and what it does. */
export type Example = readonly [line: string, description: string];

const CLOUD = "--url https://cloud.example --auth-url https://iam.example";

/**
 * A command of the CLI: its line, and its module, loaded only when the command runs (so a
 * command never loads what only another one uses, and `--help` loads none).
 */
export interface CommandEntry extends CommandLine {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  load(): Promise<CommandModule<any, any>>;
}

/**
 * Every command of the CLI, in `--help` order. To add one: an entry here, and a module whose
 * CommandModule spreads `commandLine("name")` and adds `builder` (options declared as data)
 * and `handler`. The module imports what its handler needs; what only some runs need (a
 * format's writer) it imports inside the handler. A command never exits: it returns, or
 * throws an error of src/base/errors.ts.
 */
export const commands: readonly CommandEntry[] = [
  {
    command: "generate",
    describe: "write synthetic hourly consumption files (a tree, or a zip when --out ends with .zip)",
    examples: [
      [
        "cloudunits generate --out data.zip --accounts 3 --hours 48",
        "two days of 3 accounts, a zip as getConsumption serves it",
      ],
      [
        "cloudunits generate --out tree/ --cloudspace-files --padded",
        "a folder tree of per-cloud-space files in zero-padded folders",
      ],
    ],
    load: async () => (await import("./generate.js")).generateCommand,
  },
  {
    command: "fetch",
    describe: "download consumption archives (accounts/getConsumption) from the live service",
    examples: [
      [
        `cloudunits fetch ${CLOUD} --account-id 1 --start 2026-10-01 --end 2026-10-03 --out dl/`,
        "account 1's two days into dl/ (client id and secret from CLOUDUNITS_CLIENT_ID and CLOUDUNITS_CLIENT_SECRET)",
      ],
    ],
    load: async () => (await import("./fetch.js")).fetchCommand,
  },
  {
    command: "sync",
    describe:
      "keep a warehouse file current from the live service (accounts/list, cloudspaces/list, getConsumption, ingest)",
    examples: [
      [
        `cloudunits sync ${CLOUD} --db synced.duckdb --since 2026-10-01 --until 2026-10-03`,
        "a first run (credentials as for fetch); from cron, leave out --since and --until: each run asks what is new",
      ],
    ],
    load: async () => (await import("./sync.js")).syncCommand,
  },
  {
    command: "status",
    describe:
      "how fresh a warehouse is, per account: complete until, lag, missing, late and rewritten hours, last sync (exit 7 past --max-lag)",
    examples: [
      ["cloudunits status --db synced.duckdb", "per account: complete until, hours behind, missing hours, last sync"],
      [
        "cloudunits status --db synced.duckdb --format json --max-lag 100000",
        "as JSON; exit 7 past 100000 hours behind",
      ],
    ],
    load: async () => (await import("./status.js")).statusCommand,
  },
  {
    command: "serve",
    describe:
      "a read-only web dashboard of a warehouse: units per day, accounts, machines, data quality, statements (127.0.0.1 by default)",
    examples: [
      [
        "cloudunits serve --db synced.duckdb --prices prices.yaml --port 0",
        "the dashboard on a free port of 127.0.0.1 (its address printed; the default port is 8080), until Ctrl-C",
      ],
    ],
    load: async () => (await import("./serve.js")).serveCommand,
  },
  {
    command: "ingest <inputs..>",
    describe: "load consumption files into a DuckDB database file (incremental, idempotent)",
    examples: [
      [
        "cloudunits ingest data.zip --db warehouse.duckdb",
        "create or update a warehouse file (files already in it are skipped)",
      ],
    ],
    load: async () => (await import("./ingest.js")).ingestCommand,
  },
  {
    command: `billing ${INPUTS_POSITIONAL}`,
    describe: "billing units (CU, SU, TU, NU, ...) and money of a period",
    examples: [
      ["cloudunits billing data.zip --month 2026-10 --format text", "October's units per account, as a table"],
      [
        "cloudunits billing data.zip --start 2026-10-01 --end 2026-10-03 --account-id 1",
        "account 1 in the billing/calculate JSON shape",
      ],
      [
        "cloudunits billing data.zip --month 2026-10 --prices prices.yaml --format xlsx --per-account --out invoices/",
        "one invoice workbook per account, and a summary workbook",
      ],
    ],
    load: async () => (await import("./billing.js")).billingCommand,
  },
  {
    command: "invoices",
    describe:
      "the invoice register: issue an ended month's invoices, correct one (credit note and new invoice), credit part of one, list them, write one's files again",
    examples: [
      [
        "cloudunits invoices issue --db october.duckdb --month 2026-10 --statement statement.yaml --prices prices.yaml --out invoices-2026-10/",
        "number and record October's invoices, write their PDF and UBL XML (again byte for byte if issued)",
      ],
      [
        "cloudunits invoices credit --db october.duckdb --number INV-2026-00002 --amount 10.00 --reason goodwill --statement statement.yaml --out invoices-2026-10/",
        "credit 10.00 before tax of INV-2026-00002 (VAT added per rate); the invoice stays in force for the rest",
      ],
      [
        "cloudunits invoices list --db october.duckdb --month 2026-10 --format json",
        "October's documents as JSON, oldest first: amounts, corrections, what remains, files and their SHA-256",
      ],
    ],
    load: async () => (await import("./invoices.js")).invoicesCommand,
  },
  {
    command: `reconcile ${INPUTS_POSITIONAL}`,
    describe: "compare our CU, SU, TU, NU with the platform's billing/calculate (exit 5 when they differ)",
    examples: [
      [
        `cloudunits reconcile --db warehouse.duckdb ${CLOUD} --start 2026-10-01 --end 2026-10-03`,
        "compare with the platform's billing/calculate (credentials as for fetch; exit 5 when they differ)",
      ],
    ],
    load: async () => (await import("./reconcile.js")).reconcileCommand,
  },
  {
    command: `check ${INPUTS_POSITIONAL}`,
    describe:
      "data-quality report: accounts, missing hours, duplicates, conflicts, unreadable files, odd machines and NICs",
    examples: [
      [
        "cloudunits check data.zip",
        "missing hours, duplicates, conflicts, unreadable files and impossible values of the files",
      ],
      ["cloudunits check --db warehouse.duckdb --format json", "the same report of a warehouse, as JSON"],
    ],
    load: async () => (await import("./check.js")).checkCommand,
  },
  {
    command: `export ${INPUTS_POSITIONAL}`,
    describe:
      "write the tables as Parquet, a partition per UTC month, with a manifest (for Spark, Trino, ClickHouse, DuckDB)",
    examples: [
      [
        "cloudunits export --db warehouse.duckdb --out parquet/",
        "every table as Parquet under parquet/<table>/year=.../month=.../part-0.parquet, and parquet/manifest.json",
      ],
      [
        "cloudunits export --db warehouse.duckdb --out parquet/ --month 2026-11",
        "replace November's partitions of that earlier export (each file swapped whole)",
      ],
    ],
    load: async () => (await import("./export.js")).exportCommand,
  },
  {
    command: `report <report> ${INPUTS_POSITIONAL}`,
    describe: "run a report of reports/ (machine-hours-per-image, top-consumers, daily-totals) or your own .sql",
    examples: [
      [
        "cloudunits report top-consumers --db warehouse.duckdb --start 2026-10-01 --end 2026-10-03",
        "the shipped top-consumers report of a period, as CSV",
      ],
    ],
    load: async () => (await import("./report.js")).reportCommand,
  },
  {
    command: `top ${INPUTS_POSITIONAL}`,
    describe:
      "the machines, cloud spaces or accounts that cost or consumed most (CU, SU, TU, NU), with names and the change against the period before",
    examples: [
      [
        "cloudunits top --db warehouse.duckdb --month 2026-10 --prices prices.yaml --limit 5",
        "the 5 machines that cost most in October, and their change against September",
      ],
      [
        "cloudunits top data.zip --start 2026-10-01 --end 2026-10-03 --by NU --level cloudspace",
        "cloud spaces by traffic (TiB) over two days",
      ],
    ],
    load: async () => (await import("./top.js")).topCommand,
  },
  {
    command: "forecast",
    describe: "month to date and month-end forecast (with a range) of every account's quantities and amount due",
    examples: [
      [
        "cloudunits forecast --db warehouse.duckdb --month 2026-10 --prices prices.yaml",
        "October so far and projected to its end, per account and for the environment",
      ],
    ],
    load: async () => (await import("./forecast.js")).forecastCommand,
  },
  {
    command: "alerts",
    describe:
      "budget thresholds crossed (actually or by forecast), anomalies, new and vanished machines; exit 7 when any is active",
    examples: [
      [
        "cloudunits alerts --db warehouse.duckdb --budgets budgets.yaml --prices prices.yaml",
        "every active alert, a line each with its id; exit 7 when there is one",
      ],
      [
        "cloudunits alerts --db warehouse.duckdb --budgets budgets.yaml --prices prices.yaml --format json",
        "the same as JSON, one object per alert (what --notify URL posts)",
      ],
    ],
    load: async () => (await import("./alerts.js")).alertsCommand,
  },
  {
    command: `stats <entity> ${INPUTS_POSITIONAL}`,
    describe: "hourly statistics series of a machine, cloud space or account",
    examples: [
      [
        "cloudunits stats machine data.zip --id 4392 --from 2026-10-01 --till 2026-10-02 --include cpu --include memory",
        "a machine's CPU and memory series, hour by hour, as JSON",
      ],
      [
        "cloudunits stats account --db warehouse.duckdb --id 1 --from 2026-10-01 --till 2026-10-03 --include network --format csv",
        "an account's network series, as CSV",
      ],
    ],
    load: async () => (await import("./stats.js")).statsCommand,
  },
  {
    command: "demo",
    describe: "generate a small sample data set in a temporary folder and print its billing summary",
    examples: [["cloudunits demo --keep", "keep the sample's folder, and try the commands it prints"]],
    load: async () => (await import("./demo.js")).demoCommand,
  },
];

/** The first word of a command string: the name a user types. */
export const commandName = (line: CommandLine): string => line.command.split(" ")[0]!;

/** The line of command `name`, for its module to spread into its CommandModule (one definition of each). */
export function commandLine(name: string): Pick<CommandLine, "command" | "describe"> {
  const entry = commands.find((c) => commandName(c) === name);
  if (!entry) throw new Error(`no command ${name} in src/cli/commands/index.ts`);
  return { command: entry.command, describe: entry.describe };
}
