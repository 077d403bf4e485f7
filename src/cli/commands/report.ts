import type { Argv, CommandModule } from "yargs";
import { writeAtomic } from "../../export/writeAtomic.js";
import { reportToCsv, reportToJson, reportToXlsx, type ReportFormat } from "../../export/formatReport.js";
import { loadReportDefinition } from "../../store/reportDefinition.js";
import { runReport } from "../../store/runReport.js";
import { UsageError } from "../../base/errors.js";
import { parseTime } from "../../base/time.js";
import { inputOptions, withWarehouse, type InputArgs } from "../inputs.js";
import { commandLine } from "./index.js";

interface ReportArgs extends InputArgs {
  report: string;
  format: ReportFormat;
  out?: string;
  start?: string;
  end?: string;
  accountId?: number;
}

/** `cloudunits report <name|path.sql> <inputs...|--db FILE> [--format csv|json|xlsx] [--out FILE]`. */
export const reportCommand: CommandModule<object, ReportArgs> = {
  ...commandLine("report"),
  builder: (yargs) =>
    inputOptions(
      yargs.positional("report", {
        type: "string",
        describe:
          "a shipped report's name, or a path to a .sql file (with an optional .json of column metadata beside it)",
      }),
    )
      .option("format", {
        choices: ["csv", "json", "xlsx"] as const,
        default: "csv" as const,
        describe: "output format",
      })
      .option("out", {
        type: "string",
        requiresArg: true,
        describe: "write to FILE instead of stdout (required for xlsx)",
      })
      .option("start", {
        type: "string",
        requiresArg: true,
        describe: "first hour ($start): epoch seconds or ISO 8601",
      })
      .option("end", {
        type: "string",
        requiresArg: true,
        describe: "end, exclusive ($end): epoch seconds or ISO 8601",
      })
      .option("account-id", {
        type: "number",
        requiresArg: true,
        describe: "one account ($account_id)",
      }) as unknown as Argv<ReportArgs>,
  handler: async (argv) => {
    const definition = loadReportDefinition(argv.report);
    if (argv.format === "xlsx" && argv.out === undefined) throw new UsageError("--format xlsx needs --out FILE");
    const params = {
      ...(argv.start !== undefined ? { start: parseTime(argv.start, "--start") } : {}),
      ...(argv.end !== undefined ? { end: parseTime(argv.end, "--end") } : {}),
      ...(argv.accountId !== undefined ? { accountId: argv.accountId } : {}),
    };
    const result = await withWarehouse(argv, (warehouse) => runReport(warehouse.connection, definition, params), {
      tables: definition.tables,
    });
    const content =
      argv.format === "xlsx"
        ? await reportToXlsx(result)
        : argv.format === "json"
          ? reportToJson(result)
          : reportToCsv(result);
    if (argv.out !== undefined) await writeAtomic(argv.out, content);
    else process.stdout.write(content);
  },
};
