import type { DuckDBConnection } from "@duckdb/node-api";
import { ImpossibleValuesError } from "../base/errors.js";
import { GATEWAY_TYPE } from "../load/columnBatch.js";
import {
  describeImpossible,
  MEASURED_FIELDS,
  readImpossibleValues,
  type ImpossibleValue,
} from "../load/impossibleValues.js";
import { BILLING_COLUMNS } from "./warehouseFacts.js";
import type { Period } from "../base/period.js";
import { paramTypes, paramValues, periodSql } from "../base/period.js";
import { DEFAULT_UNITS, type Units } from "./units.js";

/** The measures billing reads, by part (docs/warehouse.md: an impossible value in one of these stops billing, or counts 0 under --skip-bad). */
const BILLED_MEASURES = {
  machine: MEASURED_FIELDS.machine
    .map((f) => f.column)
    .filter((c) => (BILLING_COLUMNS.machines as readonly string[]).includes(c)),
  disk: MEASURED_FIELDS.disk
    .map((f) => f.column)
    .filter((c) => (BILLING_COLUMNS.disks as readonly string[]).includes(c)),
  nic: MEASURED_FIELDS.nic.map((f) => f.column).filter((c) => (BILLING_COLUMNS.nics as readonly string[]).includes(c)),
};

/**
 * True for an impossible value billing uses (docs/warehouse.md) whatever its hour and account: vcpus
 * and mem of a machine of the billed type, size and limits of its disks, tx and rx of the
 * external NICs of those machines and of gateways. The billing engine counts them as 0.
 */
export function isBilledImpossible(v: ImpossibleValue, units: Units): boolean {
  switch (v.part) {
    case "machine":
      return v.machineType === units.vmType && BILLED_MEASURES.machine.includes(v.column);
    case "disk":
      return v.machineType === units.vmType && BILLED_MEASURES.disk.includes(v.column);
    case "nic":
      return (
        (v.machineType === units.vmType || v.machineType === GATEWAY_TYPE) &&
        v.nicType === units.externalNicType &&
        BILLED_MEASURES.nic.includes(v.column)
      );
  }
}

/** File order of impossible values: account, hour, file, cloud space, machine, the machine's own fields first, part, index, field. */
export function compareImpossible(a: ImpossibleValue, b: ImpossibleValue): number {
  const text = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (
    a.accountId - b.accountId ||
    a.hourEpoch - b.hourEpoch ||
    text(a.file, b.file) ||
    a.cloudspaceId - b.cloudspaceId ||
    a.machineId - b.machineId ||
    Number(a.part !== "machine") - Number(b.part !== "machine") ||
    text(a.part, b.part) ||
    (a.index ?? -1) - (b.index ?? -1) ||
    text(a.field, b.field)
  );
}

/**
 * The impossible values (docs/warehouse.md: NaN, ±Infinity, negative) in the fields billing uses in
 * the period `params`: vcpus and mem of the billed machines, size and limits of their disks,
 * tx and rx of external NICs. Billing counts them as 0.
 */
export async function billedImpossibleValues(
  connection: DuckDBConnection,
  params: Period,
  units: Units = DEFAULT_UNITS,
): Promise<ImpossibleValue[]> {
  const where = periodSql("b");
  const found = await readImpossibleValues(connection, where, paramValues(params), paramTypes());
  return found.filter((v) => isBilledImpossible(v, units));
}

/**
 * Throws an ImpossibleValuesError naming each billed impossible value (docs/warehouse.md: exit 3), when
 * there is one: what billing does unless it counts them as 0 (`--skip-bad`).
 */
export function refuseImpossible(billed: ImpossibleValue[]): void {
  if (billed.length > 0) throw new ImpossibleValuesError(billed, billed.map(describeImpossible));
}
