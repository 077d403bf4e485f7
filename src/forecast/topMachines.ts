import type { DuckDBConnection } from "@duckdb/node-api";
import { checkPeriod, periodSql, type Period } from "../base/period.js";
import { duckdbApi } from "../base/duckdb.js";
import { BillingEngine, type EngineLine } from "../billing/billingEngine.js";
import { resolveOptions, type BillingOptions, type ResolvedBillingOptions } from "../billing/billingOptions.js";
import { quantityOf } from "../billing/engineLines.js";
import { CONFIGURATION_SQL, EXACT, groupedReadable } from "../billing/groupedFacts.js";
import { powerOfTwo } from "../billing/groupedLevels.js";
import { readColumns } from "../billing/readColumns.js";
import { nicBytesPerHourValue } from "../billing/units.js";
import { CONFIGURATION_FACTS, configurationAt, emptyVmFacts, factColumnsSql } from "../load/vmFacts.js";
import type { TopEntity } from "./top.js";

const WHERE = periodSql();

/**
 * Each VM of the period per configuration (its facts but those summed per hour): its hours, the
 * Σ of its external bytes, and how many of those are not whole numbers; VM-hours of the
 * period's account-hours only, as billing counts them. A machine's configuration seldom changes,
 * so this is about a row per machine where its hours are hundreds.
 */
const MACHINE_HOURS = `SELECT account_id::DOUBLE, cloudspace_id::DOUBLE, machine_id::DOUBLE, count(*)::DOUBLE,
    sum(external_bytes)::DOUBLE, count(*) FILTER (WHERE external_bytes <> trunc(external_bytes))::DOUBLE,
    ${CONFIGURATION_SQL}
  FROM (SELECT * FROM machine_facts WHERE ${WHERE} AND type = $vmType)
    SEMI JOIN (SELECT account_id, hour_epoch FROM account_hours WHERE ${WHERE}) USING (account_id, hour_epoch)
  GROUP BY account_id, cloudspace_id, machine_id, ${factColumnsSql(CONFIGURATION_FACTS)}
  ORDER BY account_id, cloudspace_id, machine_id`;
const FIRST_FACT = 6;
/** Machines summed by one engine: its sums and lines are let go after, so that they do not grow with the machines. */
const MACHINES_PER_ENGINE = 256;

/**
 * The figures of the period's machines (`TopEntity`: no line object each), from the machines' configurations grouped in DuckDB
 * (`MACHINE_HOURS`): each configuration's figures counted for its hours, exactly, and each
 * machine's bytes summed (`GroupedInput.machineHours`, `entityBytes`); the same figures as
 * `bill`'s machine lines, to the bit (their cost aside: showback needs each hour's cloud spaces). Nothing is held per hour or per machine-hour, so a month of 20,000 machines
 * costs about its machines. Undefined when this cannot give the figures exactly (the stored
 * facts do not count the units' external NICs, units added at run time, NU not the bytes scaled
 * by a power of two, bytes that are not whole or sum to 2^53) or the period has no VM-hour
 * (where `bill` says what a period or account without data is): bill it then.
 */
export async function machineFigures(
  connection: DuckDBConnection,
  period: Period,
  options: BillingOptions,
): Promise<TopEntity[] | undefined> {
  checkPeriod(period);
  const resolved = resolveOptions(options);
  const { units } = resolved;
  if (!powerOfTwo(nicBytesPerHourValue(units)) || !powerOfTwo(units.bytesPerNu)) return undefined;
  if (!(await groupedReadable(connection, units))) return undefined;
  const read = await readColumns(
    connection,
    MACHINE_HOURS,
    {
      start: BigInt(period.start),
      end: BigInt(period.end),
      account: period.accountId === undefined ? null : BigInt(period.accountId),
      vmType: units.vmType,
    },
    { vmType: duckdbApi().VARCHAR },
  );
  const [accountIds, cloudspaceIds, machineIds, counts, bytes, fractional] = read as ArrayLike<number>[];
  const rows = accountIds!.length;
  if (rows === 0) return undefined;
  // the rows of a machine follow each other: `next[r]` is the row of the next machine
  const sameMachine = (r: number, q: number) =>
    accountIds![r] === accountIds![q] && cloudspaceIds![r] === cloudspaceIds![q] && machineIds![r] === machineIds![q];
  const machineBytes = new Float64Array(rows);
  for (let r = 0, first = 0; r < rows; r++) {
    if (fractional![r]! > 0) return undefined;
    if (!sameMachine(r, first)) first = r;
    // whole numbers add up exactly below 2^53, in any order: each machine's bytes, as NU is summed per hour
    if ((machineBytes[first] = machineBytes[first]! + bytes![r]!) >= EXACT) return undefined;
  }
  const configuration = emptyVmFacts(); // the facts summed per hour (the bytes) stay 0
  const out: TopEntity[] = [];
  // an engine for a few thousand machines at a time, let go once their figures are taken
  let engine = new BillingEngine(units, resolved.cuRollup);
  let machines = 0;
  for (let r = 0; r < rows; r++) {
    const ids = { accountId: accountIds![r]!, cloudspaceId: cloudspaceIds![r]!, machineId: machineIds![r]! };
    const first = r === 0 || !sameMachine(r, r - 1);
    if (first && machines === MACHINES_PER_ENGINE) {
      entitiesOf(engine, resolved, out);
      engine = new BillingEngine(units, resolved.cuRollup);
      machines = 0;
    }
    engine.grouped.machineHours(0, ids, configurationAt(read, FIRST_FACT, r, configuration), counts![r]!);
    if (first) {
      engine.grouped.entityBytes({ part: 0, ...ids, bytes: machineBytes[r]! });
      machines++;
    }
  }
  entitiesOf(engine, resolved, out);
  return out;
}

/** The machines an engine of grouped machine-hours summed, appended to `out` as `top`'s entities. */
function entitiesOf(engine: BillingEngine, options: ResolvedBillingOptions, out: TopEntity[]): void {
  const quantity = (line: EngineLine, unit: "CU" | "SU" | "TU") => quantityOf(line.figures, unit, options);
  for (const line of engine.finish()) {
    if (line.level !== "machine") continue;
    out.push({
      accountId: line.accountId!,
      cloudspaceId: line.cloudspaceId,
      machineId: line.machineId,
      figures: {
        CU: quantity(line, "CU"),
        SU: quantity(line, "SU"),
        TU: quantity(line, "TU"),
        NU: line.figures.ownNicNu,
        cost: null,
      },
    });
  }
}
