import type { CommandModule } from "yargs";
import { INPUTS_POSITIONAL } from "../inputs.js";

/** What the CLI knows of a command before loading it: enough to list it and to pick it. */
export interface CommandLine {
  /** The yargs command string: the name, then the positionals (`billing [inputs..]`). */
  command: string;
  /** One line for `--help`. */
  describe: string;
}

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
 * throws an error of src/errors.ts.
 */
export const commands: readonly CommandEntry[] = [
  {
    command: "generate",
    describe: "write synthetic hourly consumption files (a tree, or a zip when --out ends with .zip)",
    load: async () => (await import("./generate.js")).generateCommand,
  },
  {
    command: "fetch",
    describe: "download consumption archives (accounts/getConsumption) from the live service",
    load: async () => (await import("./fetch.js")).fetchCommand,
  },
  {
    command: "sync",
    describe: "keep a warehouse file current from the live service (accounts/list, cloudspaces/list, getConsumption, ingest)",
    load: async () => (await import("./sync.js")).syncCommand,
  },
  {
    command: "ingest <inputs..>",
    describe: "load consumption files into a DuckDB database file (incremental, idempotent)",
    load: async () => (await import("./ingest.js")).ingestCommand,
  },
  {
    command: `billing ${INPUTS_POSITIONAL}`,
    describe: "billing units (CU, SU, TU, NU, ...) and money of a period (docs/formulas.md)",
    load: async () => (await import("./billing.js")).billingCommand,
  },
  {
    command: `reconcile ${INPUTS_POSITIONAL}`,
    describe: "compare our CU, SU, TU, NU with the platform's billing/calculate (exit 5 when they differ)",
    load: async () => (await import("./reconcile.js")).reconcileCommand,
  },
  {
    command: `check ${INPUTS_POSITIONAL}`,
    describe: "data-quality report: accounts, missing hours, duplicates, conflicts, unreadable files, odd machines and NICs",
    load: async () => (await import("./check.js")).checkCommand,
  },
  {
    command: `export ${INPUTS_POSITIONAL}`,
    describe: "write the tables as Parquet, partitioned by account/year/month (for Spark, Trino, DuckDB)",
    load: async () => (await import("./export.js")).exportCommand,
  },
  {
    command: `report <report> ${INPUTS_POSITIONAL}`,
    describe: "run a report of reports/ (machine-hours-per-image, top-consumers, daily-totals) or your own .sql",
    load: async () => (await import("./report.js")).reportCommand,
  },
  {
    command: `stats <entity> ${INPUTS_POSITIONAL}`,
    describe: "hourly statistics series of a machine, cloud space or account (docs/statistics.md)",
    load: async () => (await import("./stats.js")).statsCommand,
  },
  {
    command: "demo",
    describe: "generate a small sample data set in a temporary folder and print its billing summary",
    load: async () => (await import("./demo.js")).demoCommand,
  },
];

/** The first word of a command string: the name a user types. */
export const commandName = (line: CommandLine): string => line.command.split(" ")[0]!;

/** The line of command `name`, for its module to spread into its CommandModule (one definition of each). */
export function commandLine(name: string): CommandLine {
  const entry = commands.find((c) => commandName(c) === name);
  if (!entry) throw new Error(`no command ${name} in src/cli/commands/index.ts`);
  return { command: entry.command, describe: entry.describe };
}
