import { parseConsumptionPath } from "../input/parseConsumptionPath.js";
import type { ImpossibleValue } from "../base/impossibleValue.js";
import { nameOf, type Names } from "../billing/names.js";
import { readImpossibleValues } from "../load/impossibleValues.js";
import type { SkippedFile, Warehouse } from "../store/types.js";
import { warehouseStatus, type AccountStatus, type WarehouseStatus } from "../sync/warehouseStatus.js";
import { clockNow } from "../base/clock.js";

/** The data quality of one account: its freshness and gaps, its bad files and impossible values. */
export interface AccountQuality {
  status: AccountStatus;
  /** Files of the account skipped as unreadable or in conflict (by their path). */
  badFiles: SkippedFile[];
  impossibleValues: ImpossibleValue[];
}

/** What the data-quality page shows. */
export interface QualityData {
  status: WarehouseStatus;
  accounts: AccountQuality[];
  /** Bad files whose path names no account. */
  otherBadFiles: SkippedFile[];
}

/** The account a file's path names, if it is a consumption path. */
function accountOfFile(file: string): number | undefined {
  try {
    return parseConsumptionPath(file.split("!").at(-1)!)?.accountId;
  } catch {
    return undefined;
  }
}

/**
 * Per account: missing, late and rewritten hours and the hours not yet synced
 * (`warehouseStatus`, as `status` reports them), bad files (the warehouse's load report) and
 * impossible values (recorded at ingest, as `check --db` lists them); account names from
 * `namesFile` over those `sync` stored. Only these parts of
 * `check --db` are shown, so only they are read: its other findings (NIC id collisions, zero
 * resources) group every NIC and machine row of the warehouse.
 */
export async function qualityData(store: Warehouse, namesFile?: Names, nowEpoch = clockNow()): Promise<QualityData> {
  const { load } = store;
  const status = await warehouseStatus(store, nowEpoch);
  const impossibleValues = await readImpossibleValues(store.connection);
  // check's order: unreadable files, then conflicts
  const bad = [
    ...load.skipped.filter((s) => s.code !== "CONFLICT"),
    ...load.skipped.filter((s) => s.code === "CONFLICT"),
  ];
  const byAccount = new Map(bad.map((f) => [f, accountOfFile(f.file)]));
  return {
    status,
    accounts: status.accounts.map((s) => ({
      status: { ...s, name: nameOf(namesFile, "account", s.accountId) || s.name }, // a names file's over those sync stored
      badFiles: bad.filter((f) => byAccount.get(f) === s.accountId),
      impossibleValues: impossibleValues.filter((v) => v.accountId === s.accountId),
    })),
    otherBadFiles: bad.filter((f) => !status.accounts.some((s) => s.accountId === byAccount.get(f))),
  };
}
