import { writeAtomic } from "../../export/writeAtomic.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { Argv, CommandModule } from "yargs";
import { accountHoursIn, missingHoursOf, missingHoursWarnings } from "../../billing/dataQuality.js";
import { UsageError } from "../../base/errors.js";
import { loadUnits } from "../../billing/units.js";
import { statsToCsv } from "../../export/statsCsv.js";
import { statsToHtml } from "../../export/statsHtml.js";
import { accountStats } from "../../stats/accountStats.js";
import { cloudspaceStats } from "../../stats/cloudspaceStats.js";
import { machineStats } from "../../stats/machineStats.js";
import { parsePeriod } from "../../stats/runStats.js";
import { SERIES_CATALOG, statsTables } from "../../stats/seriesCatalog.js";
import { selectSeries } from "../../stats/selectSeries.js";
import { statsAccount } from "../../stats/statsAccount.js";
import { statsImpossibleValues } from "../../stats/statsImpossibleValues.js";
import { describeImpossible } from "../../load/impossibleValues.js";
import type { StatsEntity, StatsPeriod, StatsResponse } from "../../stats/types.js";
import type { DataTable } from "../../store/schema.js";
import { isoUtc } from "../../base/time.js";
import { inputOptions, withWarehouse, type InputArgs } from "../inputs.js";
import { commandLine } from "./index.js";
import { flagWords } from "../flagWords.js";

const ENTITIES = ["machine", "cloudspace", "account"] as const;
const FORMATS = ["json", "csv", "html"] as const;

/** The series each entity offers, for `--help`: "machine: cpu, memory, ...; cloudspace: ...". */
function seriesList(): string {
  return ENTITIES.map((entity) => `${entity}: ${SERIES_CATALOG[entity].map((d) => d.name).join(", ")}`).join("; ");
}

const options = {
  id: { type: "string", demandOption: true, describe: "id of the machine, cloud space or account" },
  "account-id": {
    type: "string",
    describe: "the account of the machine or cloud space (needed when its id is in several accounts)",
  },
  from: { type: "string", demandOption: true, describe: "start of the period, inclusive: epoch seconds or ISO 8601" },
  till: { type: "string", demandOption: true, describe: "end of the period, exclusive: epoch seconds or ISO 8601" },
  // one value per --include (repeat it), so it never takes the inputs after it (docs/cli.md)
  include: {
    type: "string",
    array: true,
    nargs: 1,
    demandOption: true,
    describe: `a series to return (repeat, or separate with commas): ${seriesList()}`,
  },
  format: {
    choices: FORMATS,
    default: "json",
    describe: "json: the API shape; csv: long format; html: a page of charts",
  },
  out: { type: "string", describe: "write to FILE instead of stdout" },
  units: {
    type: "string",
    requiresArg: true,
    describe:
      "a units file (JSON or YAML): its cpuReading, nicReading and nicBytesPerValue say how cpu and network are read",
  },
} as const;

interface StatsArgs extends InputArgs {
  entity: StatsEntity;
  id: string;
  accountId?: string;
  from: string;
  till: string;
  include: string[];
  format: (typeof FORMATS)[number];
  out?: string;
  units?: string;
}

/** `cloudunits stats machine|cloudspace|account`: the series of docs/statistics.md as JSON, CSV or an HTML page. */
export const statsCommand: CommandModule<object, StatsArgs> = {
  ...commandLine("stats"),
  builder: (yargs) =>
    inputOptions(
      yargs.positional("entity", { choices: ENTITIES, describe: "what the series are about" }).options(options),
    ) as unknown as Argv<StatsArgs>,
  handler: async (argv) => {
    const { fromEpoch, tillEpoch } = parsePeriod(argv.from, argv.till, { from: "--from", till: "--till" });
    const include = argv.include
      .flatMap((s) => String(s).split(","))
      .map((s) => s.trim())
      .filter((s) => s !== "");
    selectSeries(argv.entity, SERIES_CATALOG[argv.entity], include);
    const id = wholeNumber(argv.id, "--id");
    const accountId = argv.accountId === undefined ? undefined : wholeNumber(argv.accountId, "--account-id");
    const request = {
      from: fromEpoch,
      till: tillEpoch,
      include,
      readings: argv.units === undefined ? undefined : await loadUnits(argv.units),
    };
    const response = await withWarehouse(
      argv,
      async ({ connection }): Promise<StatsResponse> => {
        const result = await statsOf(connection, argv.entity, id, accountId, request);
        // missing files of the entity's account inside the period are warnings, never silent (docs/cli.md)
        const account = await statsAccount(connection, argv.entity, { id, accountId, ...request });
        if (account !== undefined && result.time.length > 0) {
          const params = { start: fromEpoch, end: tillEpoch, accountId: account };
          for (const w of missingHoursWarnings(
            missingHoursOf(await accountHoursIn(connection, params), params),
            params,
          )) {
            process.stderr.write(`cloudunits: warning: ${flagWords(w.message)}\n`);
          }
          // impossible values are null in the series, never silent (docs/warehouse.md)
          for (const v of await statsImpossibleValues(connection, argv.entity, account, { id, ...request })) {
            process.stderr.write(
              `cloudunits: warning: impossible value, null in the series: ${describeImpossible(v)}\n`,
            );
          }
        }
        return result;
      },
      { tables: [...new Set<DataTable>([...statsTables(argv.entity, include), "account_hours"])] },
    );
    if (response.time.length === 0) {
      process.stderr.write(
        `cloudunits: ${argv.entity} ${id} has no samples in [${isoUtc(fromEpoch)}, ${isoUtc(tillEpoch)})\n`,
      );
    }
    const subject = { entity: argv.entity, id, fromEpoch, tillEpoch };
    const text =
      argv.format === "csv"
        ? statsToCsv(response, subject)
        : argv.format === "html"
          ? await statsToHtml(response, subject)
          : `${JSON.stringify(response)}\n`;
    if (argv.out === undefined) process.stdout.write(text);
    else await writeAtomic(argv.out, text); // a reader never sees half a file
  },
};

function statsOf(
  connection: DuckDBConnection,
  entity: StatsEntity,
  id: number,
  accountId: number | undefined,
  request: StatsPeriod,
): Promise<StatsResponse> {
  switch (entity) {
    case "machine":
      return machineStats(connection, { ...request, machineId: id, accountId });
    case "cloudspace":
      return cloudspaceStats(connection, { ...request, cloudspaceId: id, accountId });
    case "account":
      return accountStats(connection, { ...request, accountId: id });
  }
}

function wholeNumber(text: string, flag: string): number {
  const value = Number(text);
  if (!/^\s*-?\d+\s*$/.test(String(text)) || !Number.isSafeInteger(value))
    throw new UsageError(`bad ${flag}: "${text}" (a whole number)`);
  return value;
}
