import type { Argv, CommandModule } from "yargs";
import { toParquet } from "../../export/toParquet.js";
import { inputOptions, withWarehouse, type InputArgs } from "../inputs.js";
import { commandLine } from "./index.js";

interface ExportArgs extends InputArgs {
  format: "parquet";
  out: string;
}

/** `cloudunits export <inputs...|--db FILE> --format parquet --out DIR`: the tables as partitioned Parquet. */
export const exportCommand: CommandModule<object, ExportArgs> = {
  ...commandLine("export"),
  builder: (yargs) =>
    inputOptions(yargs)
      .option("format", { choices: ["parquet"] as const, default: "parquet" as const, describe: "output format" })
      .option("out", { type: "string", demandOption: true, requiresArg: true, describe: "a new or empty directory to write" }) as unknown as Argv<ExportArgs>,
  handler: async (argv) => {
    const result = await withWarehouse(argv, (warehouse) => toParquet(warehouse.connection, { outDir: argv.out }));
    const rows = result.tables.map((t) => `${t.table} ${t.rows}`).join(", ");
    process.stderr.write(`cloudunits: wrote Parquet to ${result.outDir} (rows: ${rows})\n`);
  },
};
