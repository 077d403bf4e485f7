import type { DuckDBConnection } from "@duckdb/node-api";
import { ImpossibleValuesError } from "../errors.js";
import { describeImpossible, readImpossibleValues, type ImpossibleValue } from "../store/impossibleValues.js";
import { billedImpossibleWhere } from "./billingCtes.js";
import { checkParams, PARAM_TYPES, paramValues, type BillingParams } from "./lines.js";
import { DEFAULT_UNITS, type Units } from "./units.js";

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
