import type { Argv, CommandModule } from "yargs";
import { ENGINE_READ_MEMORY_BYTES, inputOptions, NAMES_OPTION, withWarehouse, type InputArgs } from "../inputs.js";
import { argvPeriod } from "../periodArgs.js";
import { clockNow } from "../../base/clock.js";
import { commandLine } from "./index.js";

/** DuckDB's memory for `top` of machines by a unit (`forecast/topMachines.ts`): what it caches of the file, bounded. */
const TOP_MACHINES_MEMORY_BYTES = 32 * 1024 * 1024;

interface TopArgs extends InputArgs {
  by?: "CU" | "SU" | "TU" | "NU" | "cost";
  level: "machine" | "cloudspace" | "account";
  month?: string;
  start?: string;
  end?: string;
  limit: number;
  accountId?: number;
  prices?: string;
  names?: string;
  format: "text" | "csv" | "json";
}

/** `cloudunits top <inputs...|--db FILE> --by CU|SU|TU|NU|cost (--month M | --start T --end T)`: who consumed most, and the change. */
export const topCommand: CommandModule<object, TopArgs> = {
  ...commandLine("top"),
  builder: (yargs) =>
    inputOptions(yargs)
      .option("by", {
        choices: ["CU", "SU", "TU", "NU", "cost"] as const,
        describe:
          "rank by this unit (a machine's own CU; NU of its own external NICs) or by cost (needs --prices); default cost with --prices, else CU",
      })
      .option("level", {
        choices: ["machine", "cloudspace", "account"] as const,
        default: "machine" as const,
        describe: "rank machines, cloud spaces or accounts",
      })
      .option("month", {
        type: "string",
        requiresArg: true,
        describe: "a calendar month in UTC, YYYY-MM, instead of --start/--end; compared with the month before",
      })
      .option("start", {
        type: "string",
        requiresArg: true,
        describe: "first hour: epoch seconds or ISO 8601 (compared with the period as long just before)",
      })
      .option("end", { type: "string", requiresArg: true, describe: "end, exclusive: epoch seconds or ISO 8601" })
      .option("limit", { type: "number", default: 10, requiresArg: true, describe: "rows shown" })
      .option("account-id", { type: "number", requiresArg: true, describe: "one account's cloud spaces or machines" })
      .option("prices", {
        type: "string",
        requiresArg: true,
        describe:
          "a price list (JSON or YAML): cost is the invoice of an account, the allocated share of a cloud space or machine",
      })
      .option("names", NAMES_OPTION)
      .option("format", {
        choices: ["text", "csv", "json"] as const,
        default: "text" as const,
        describe: "output format",
      }) as unknown as Argv<TopArgs>,
  handler: async (argv) => {
    const period = argvPeriod(argv);
    const { loadPrices } = await import("../../billing/prices.js");
    const { loadNames } = await import("../../billing/names.js");
    const { top } = await import("../../forecast/top.js");
    const { topToCsv, topToJson, topToText } = await import("../../export/topReport.js");
    const prices = argv.prices === undefined ? undefined : await loadPrices(argv.prices);
    const names = argv.names === undefined ? undefined : await loadNames(argv.names);
    const report = await withWarehouse(
      argv,
      (w) =>
        top(w.connection, {
          ...period,
          ...(argv.accountId !== undefined ? { accountId: argv.accountId } : {}),
          by: argv.by ?? (prices ? "cost" : "CU"),
          level: argv.level,
          limit: argv.limit,
          prices,
          options: { names },
          // a warehouse kept by sync is behind or not; files given are what they are
          ...(argv.db !== undefined ? { nowEpoch: clockNow() } : {}),
        }),
      // from --db, DuckDB's cache of the file stays flat in the machines (docs/performance.md); machines
      // ranked by a unit are one grouping of the period's machine-hours as they are scanned, which needs less
      { memoryLimitBytes: argv.level === "machine" && !prices ? TOP_MACHINES_MEMORY_BYTES : ENGINE_READ_MEMORY_BYTES },
    );
    process.stdout.write(
      argv.format === "json" ? topToJson(report) : argv.format === "csv" ? topToCsv(report) : topToText(report),
    );
  },
};
