import type { Argv, CommandModule } from "yargs";
import { flagWords } from "../flagWords.js";
import { BILLING_COLUMNS, BILLING_TABLES } from "../../billing/warehouseFacts.js";
import { loadUnits } from "../../billing/units.js";
import { ReconcileDifferenceError } from "../../base/errors.js";
import { reconcileToCsv, reconcileToJson, reconcileToText, reconcileVerdict } from "../../export/reconcileReport.js";
import { writeAtomic } from "../../export/writeAtomic.js";
import { DEFAULT_TOLERANCE, reconcile } from "../../reconcile/reconcile.js";
import { inputOptions, withWarehouse, type InputArgs } from "../inputs.js";
import { commandLine } from "./index.js";
import { authFromArgs, policyFromArgs, SERVICE_OPTIONS, type ServiceFlags } from "../serviceOptions.js";

const FORMATS = ["text", "csv", "json"] as const;

const options = {
  url: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "service base address {base_url}, e.g. https://cloud.example.com",
  },
  start: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "start of the period, inclusive: epoch seconds or ISO 8601 (UTC without a zone)",
  },
  end: { type: "string", demandOption: true, requiresArg: true, describe: "end of the period, exclusive" },
  "account-id": {
    type: "number",
    array: true,
    nargs: 1,
    describe:
      "account to compare in detail (repeat; default: accounts/list and every account of our data in the period)",
  },
  tolerance: { type: "number", default: DEFAULT_TOLERANCE, describe: "largest relative difference that still agrees" },
  "platform-end": {
    choices: ["exclusive", "inclusive"] as const,
    default: "exclusive",
    describe: "how the platform reads end: half-open like ours, or counting the hour end (then asked the last hour)",
  },
  "cu-rollup": {
    choices: ["aggregate", "sum"] as const,
    default: "aggregate",
    describe: "our CU of a level: from its own totals (aggregate) or the sum of its machines' CU",
  },
  units: {
    type: "string",
    requiresArg: true,
    describe: "a units file (JSON or YAML) overriding the published constants",
  },
  format: { choices: FORMATS, default: "text", describe: "text (assumptions, table, verdict), csv or json" },
  out: { type: "string", requiresArg: true, describe: "write to FILE (atomically) instead of stdout" },
  ...SERVICE_OPTIONS,
} as const;

interface ReconcileArgs extends InputArgs, ServiceFlags {
  url: string;
  start: string;
  end: string;
  accountId?: number[];
  tolerance: number;
  platformEnd: "exclusive" | "inclusive";
  cuRollup: "aggregate" | "sum";
  units?: string;
  format: (typeof FORMATS)[number];
  out?: string;
}

/** `cloudunits reconcile`: our bill against the platform's billing/calculate; exit 5 when they differ. */
export const reconcileCommand: CommandModule<object, ReconcileArgs> = {
  ...commandLine("reconcile"),
  builder: (yargs) => inputOptions(yargs.options(options)) as unknown as Argv<ReconcileArgs>,
  handler: async (argv) => {
    const policy = policyFromArgs(argv);
    const auth = authFromArgs(argv, process.env);
    const units = argv.units === undefined ? undefined : await loadUnits(argv.units);
    const report = await withWarehouse(
      argv,
      ({ connection }) =>
        reconcile(connection, {
          url: argv.url,
          auth,
          start: argv.start,
          end: argv.end,
          accountIds: argv.accountId,
          tolerance: argv.tolerance,
          platformEnd: argv.platformEnd,
          cuRollup: argv.cuRollup,
          units,
          ...policy,
        }),
      { tables: BILLING_TABLES, columns: BILLING_COLUMNS },
    );
    const text =
      argv.format === "json"
        ? `${JSON.stringify(reconcileToJson(report), null, 2)}\n`
        : argv.format === "csv"
          ? reconcileToCsv(report)
          : flagWords(reconcileToText(report)); // names options: the command line says flags
    if (argv.out !== undefined) await writeAtomic(argv.out, text);
    else await new Promise<void>((resolve, reject) => process.stdout.write(text, (e) => (e ? reject(e) : resolve())));
    if (!report.agree) throw new ReconcileDifferenceError(report.rows.length, reconcileVerdict(report));
  },
};
