import type { Argv, CommandModule } from "yargs";
import { toParquet } from "../../export/toParquet.js";
import { inputOptions, withWarehouse, type InputArgs } from "../inputs.js";
import { commandLine } from "./index.js";

interface ExportArgs extends InputArgs {
  format: "parquet";
  out: string;
  month?: string;
}

/** DuckDB's memory with `--db`: one month is sorted and written at a time, and DuckDB sorts beyond this on disk. */
const DB_MEMORY_LIMIT_BYTES = 128 * 1024 * 1024;

/** `cloudunits export <inputs...|--db FILE> --format parquet --out DIR [--month YYYY-MM]`: the tables as Parquet, a partition per month. */
export const exportCommand: CommandModule<object, ExportArgs> = {
  ...commandLine("export"),
  builder: (yargs) =>
    inputOptions(yargs)
      .option("format", { choices: ["parquet"] as const, default: "parquet" as const, describe: "output format" })
      .option("out", {
        type: "string",
        demandOption: true,
        requiresArg: true,
        describe: "a new or empty directory, or an earlier export (its months are replaced)",
      })
      .option("month", {
        type: "string",
        requiresArg: true,
        describe: "export only this UTC month (YYYY-MM), replacing its partitions; default: every month with data",
      }) as unknown as Argv<ExportArgs>,
  handler: async (argv) => {
    const result = await withWarehouse(
      argv,
      (warehouse) => toParquet(warehouse.connection, { outDir: argv.out, month: argv.month }),
      {
        memoryLimitBytes: DB_MEMORY_LIMIT_BYTES,
      },
    );
    const rows = result.tables.map((t) => `${t.table} ${t.rows}`).join(", ");
    const months = result.partitions.map((p) => `${p.year}-${String(p.month).padStart(2, "0")}`).join(", ") || "none";
    process.stderr.write(`cloudunits: wrote Parquet to ${result.outDir} (months: ${months}; rows: ${rows})\n`);
  },
};
