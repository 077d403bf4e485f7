import type { DuckDBConnection } from "@duckdb/node-api";
import { ImpossibleValuesError } from "../errors.js";
import { GATEWAY_TYPE } from "../store/columnBatch.js";
import { describeImpossible, MEASURED_FIELDS, readImpossibleValues, type ImpossibleValue } from "../store/impossibleValues.js";
import { BILLING_COLUMNS } from "./warehouseFacts.js";
import { checkParams, PARAM_TYPES, paramValues, type BillingParams } from "./lines.js";
import { DEFAULT_UNITS, type Units } from "./units.js";

/** The measures billing reads, by part (SPEC 3.1: an impossible value in one of these stops billing, or counts 0 under --skip-bad). */
const BILLED_MEASURES = {
  machine: MEASURED_FIELDS.machine.map((f) => f.column).filter((c) => (BILLING_COLUMNS.machines as readonly string[]).includes(c)),
  disk: MEASURED_FIELDS.disk.map((f) => f.column).filter((c) => (BILLING_COLUMNS.disks as readonly string[]).includes(c)),
  nic: MEASURED_FIELDS.nic.map((f) => f.column).filter((c) => (BILLING_COLUMNS.nics as readonly string[]).includes(c)),
};

const str = (s: string) => `'${s.replaceAll("'", "''")}'`;
const list = (items: readonly string[]) => (items.length === 0 ? "NULL" : items.map(str).join(", "));

/**
 * The condition on `impossible_values` (alias `b`) selecting the impossible values billing
 * uses in `[$start, $end)` for `$account` (NULL: every account): vcpus and mem of the billed
 * machine type, size and the limits of their disks, tx and rx of the external NICs of those
 * machines and of gateways. The billing engine counts them as 0 (see `machineFacts`).
 */
export function billedImpossibleWhere(units: Units): string {
  return `b.hour_epoch >= $start AND b.hour_epoch < $end AND ($account IS NULL OR b.account_id = $account) AND (
    (b.part = 'machine' AND b.machine_type = ${str(units.vmType)} AND b.column_name IN (${list(BILLED_MEASURES.machine)}))
    OR (b.part = 'disk' AND b.machine_type = ${str(units.vmType)} AND b.column_name IN (${list(BILLED_MEASURES.disk)}))
    OR (b.part = 'nic' AND b.machine_type IN (${list([units.vmType, GATEWAY_TYPE])}) AND b.nic_type = ${str(units.externalNicType)}
        AND b.column_name IN (${list(BILLED_MEASURES.nic)})))`;
}

/**
 * The impossible values (SPEC 3.1: NaN, ±Infinity, negative) in the fields billing uses in
 * the period `params`: vcpus and mem of the billed machines, size and limits of their disks,
 * tx and rx of external NICs. Billing counts them as 0.
 */
export async function billedImpossibleValues(
  connection: DuckDBConnection, params: BillingParams, units: Units = DEFAULT_UNITS,
): Promise<ImpossibleValue[]> {
  checkParams(params);
  return readImpossibleValues(connection, billedImpossibleWhere(units), paramValues(params), PARAM_TYPES);
}

/**
 * Refuses to bill a period holding impossible values in billed fields (SPEC 3.1): throws an
 * ImpossibleValuesError (exit 3) naming each one's file, entity and field, unless `skipBad`
 * (then they count as 0 and the report's data quality lists them).
 */
export async function assertBillable(
  connection: DuckDBConnection, params: BillingParams, units: Units = DEFAULT_UNITS, skipBad = false,
): Promise<void> {
  if (skipBad) return;
  const found = await billedImpossibleValues(connection, params, units);
  if (found.length > 0) throw new ImpossibleValuesError(found, found.map(describeImpossible));
}
