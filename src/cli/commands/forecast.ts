import type { Argv, CommandModule } from "yargs";
import { ENGINE_READ_MEMORY_BYTES, NAMES_OPTION, WAIT_OPTION, WAREHOUSE_OPTION } from "../inputs.js";
import { clockNow } from "../../base/clock.js";
import { commandLine } from "./index.js";

interface ForecastArgs {
  db: string;
  month: string;
  prices?: string;
  names?: string;
  format: "text" | "json";
  wait?: number;
}

const options = {
  db: WAREHOUSE_OPTION,
  month: { type: "string", demandOption: true, requiresArg: true, describe: "the month to forecast, YYYY-MM (UTC)" },
  prices: {
    type: "string",
    requiresArg: true,
    describe: "a price list (JSON or YAML): adds the amount due so far and projected",
  },
  names: NAMES_OPTION,
  format: { choices: ["text", "json"] as const, default: "text" as const, describe: "output format" },
  wait: WAIT_OPTION,
} as const;

/** `cloudunits forecast --db FILE --month YYYY-MM [--prices FILE]`: month to date and month end, per account and the environment. */
export const forecastCommand: CommandModule<object, ForecastArgs> = {
  ...commandLine("forecast"),
  builder: (yargs) => yargs.options(options) as unknown as Argv<ForecastArgs>,
  handler: async (argv) => {
    const { loadPrices } = await import("../../billing/prices.js");
    const { loadNames } = await import("../../billing/names.js");
    const { forecast } = await import("../../forecast/forecast.js");
    const { forecastToJson, forecastToText } = await import("../../export/forecastReport.js");
    const { withWarehouse } = await import("../inputs.js");
    const prices = argv.prices === undefined ? undefined : await loadPrices(argv.prices);
    const names = argv.names === undefined ? undefined : await loadNames(argv.names);
    const nowEpoch = clockNow();
    const result = await withWarehouse(
      { db: argv.db, wait: argv.wait },
      (w) => forecast(w.connection, { month: argv.month, prices, options: { names }, nowEpoch }),
      { memoryLimitBytes: ENGINE_READ_MEMORY_BYTES },
    );
    process.stdout.write(argv.format === "json" ? forecastToJson(result) : forecastToText(result));
  },
};
