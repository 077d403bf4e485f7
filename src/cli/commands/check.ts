import type { Argv, CommandModule } from "yargs";
import { flagWords } from "../flagWords.js";
import { BadFileError, BadInputError, ImpossibleValuesError } from "../../base/errors.js";
import { isErrorCodeWithExit } from "../../base/errorCodes.js";
import { CHECK_TABLES, checkWarehouse } from "../../store/checkWarehouse.js";
import { formatCheckText } from "../../store/formatCheckText.js";
import { describeImpossible } from "../../load/impossibleValues.js";
import { inputOptions, withWarehouse, type InputArgs } from "../inputs.js";
import { commandLine } from "./index.js";

interface CheckArgs extends InputArgs {
  format: "text" | "json";
}

/**
 * DuckDB's memory with `--db`: what it caches of the file stays under this, and its groupings
 * (the NIC findings, a run of hours at a time) go to disk beyond it, so the peak stays flat in
 * the period (a month's cache filled to the limit where a week's held less).
 */
const DB_MEMORY_LIMIT_BYTES = 24 * 1024 * 1024;

/**
 * `cloudunits check <inputs...|--db FILE> [--format text|json]`: the data-quality report on
 * stdout; exit 0 when every file was readable and holds no impossible value, 3 otherwise
 * (bad files and values are always reported, never fatal to the report itself).
 */
export const checkCommand: CommandModule<object, CheckArgs> = {
  ...commandLine("check"),
  builder: (yargs) =>
    inputOptions(yargs).option("format", {
      choices: ["text", "json"] as const,
      default: "text" as const,
      describe: "output format",
    }) as unknown as Argv<CheckArgs>,
  handler: async (argv) => {
    const report = await withWarehouse(argv, (warehouse) => checkWarehouse(warehouse.connection, warehouse.load), {
      tables: CHECK_TABLES,
      skipBad: true,
      notes: false,
      memoryLimitBytes: DB_MEMORY_LIMIT_BYTES,
    });
    process.stdout.write(
      argv.format === "json" ? `${JSON.stringify(report, null, 2)}\n` : flagWords(formatCheckText(report)),
    ); // the report names options, the command line flags
    if (!report.readable) {
      throw new BadInputError(
        [...report.unreadable, ...report.conflicts].map(
          // a code the warehouse recorded; one a later version no longer has reads as BAD_INPUT
          (s) => new BadFileError(isErrorCodeWithExit(s.code, 3) ? s.code : "BAD_INPUT", s.file, s.reason),
        ),
      );
    }
    if (report.impossibleValues.length > 0) {
      throw new ImpossibleValuesError(
        report.impossibleValues,
        report.impossibleValues.map(describeImpossible),
        "in the data",
      );
    }
  },
};
