import type { Argv, CommandModule } from "yargs";
import { ActiveAlertsError, FetchError, UsageError } from "../../base/errors.js";
import { ENGINE_READ_MEMORY_BYTES, NAMES_OPTION, WAIT_OPTION, WAREHOUSE_OPTION } from "../inputs.js";
import { clockNow } from "../../base/clock.js";
import { commandLine } from "./index.js";

interface AlertsArgs {
  db: string;
  budgets: string;
  prices?: string;
  names?: string;
  notify?: string;
  window: number;
  format: "text" | "json";
  wait?: number;
}

const options = {
  db: WAREHOUSE_OPTION,
  budgets: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe:
      "a budgets file (YAML or JSON): monthly amounts or unit quantities per account or the environment, thresholds in %",
  },
  prices: {
    type: "string",
    requiresArg: true,
    describe:
      "a price list (JSON or YAML): needed by budgets of an amount; adds cost anomalies, each in its account's currency",
  },
  names: NAMES_OPTION,
  notify: {
    type: "string",
    requiresArg: true,
    describe:
      "POST the alerts' JSON to this webhook when any is active (never redirected; its path and query are never printed)",
  },
  window: {
    type: "number",
    default: 24,
    requiresArg: true,
    describe: "anomalies and new or vanished machines of the last this many hours held are active",
  },
  format: { choices: ["text", "json"] as const, default: "text" as const, describe: "output format" },
  wait: WAIT_OPTION,
} as const;

/** `cloudunits alerts --db FILE --budgets FILE [--prices FILE] [--notify URL] [--format text|json]`: exit 7 when any alert is active. */
export const alertsCommand: CommandModule<object, AlertsArgs> = {
  ...commandLine("alerts"),
  builder: (yargs) => yargs.options(options) as unknown as Argv<AlertsArgs>,
  handler: async (argv) => {
    if (!Number.isSafeInteger(argv.window) || argv.window < 1)
      throw new UsageError(`bad --window ${String(argv.window)}: use a whole number of hours, 1 or more`);
    const { loadPrices } = await import("../../billing/prices.js");
    const { loadNames } = await import("../../billing/names.js");
    const { loadBudgets } = await import("../../forecast/budgets.js");
    const { alerts } = await import("../../forecast/alerts.js");
    const { notify, webhookAddress } = await import("../../forecast/notify.js");
    const { alertsBody, alertsToJson, alertsToText } = await import("../../export/alertsReport.js");
    const { withWarehouse } = await import("../inputs.js");
    const webhook = argv.notify === undefined ? undefined : webhookAddress(argv.notify); // a bad address is refused before any work
    const budgets = await loadBudgets(argv.budgets);
    const prices = argv.prices === undefined ? undefined : await loadPrices(argv.prices);
    const names = argv.names === undefined ? undefined : await loadNames(argv.names);
    const nowEpoch = clockNow();
    const report = await withWarehouse(
      { db: argv.db, wait: argv.wait },
      (w) => alerts(w.connection, { budgets, prices, windowHours: argv.window, options: { names }, nowEpoch }),
      { memoryLimitBytes: ENGINE_READ_MEMORY_BYTES },
    );
    process.stdout.write(argv.format === "json" ? alertsToJson(report) : alertsToText(report));
    if (report.alerts.length === 0) return;
    // a webhook that fails does not hide the alerts: exit 7 still, with why they were not posted
    const unsent =
      webhook === undefined
        ? undefined
        : await notify(webhook, alertsBody(report)).then(
            () => undefined,
            (error: unknown) => {
              if (error instanceof FetchError) return error;
              throw error;
            },
          );
    throw new ActiveAlertsError(report.alerts.length, unsent);
  },
};
