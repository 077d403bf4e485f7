import type { Period } from "../base/period.js";
import { resolveOptions, type BillingOptions } from "./billingOptions.js";
import type { BillingLine } from "./lines.js";
import { nameOf } from "./names.js";
import { BASE_UNITS, type UnitName } from "./unitNames.js";
import { catalogUnits, isVolume } from "./unitCatalog.js";

/** A consumption object: CU, SU, TU (machines) plus NU (cloud space and above); VCU, MU, WU, PIU with `allUnits`. */
export type Consumption = Partial<Record<UnitName, number>>;

/** A machine of `billing/calculate`. */
export interface CalculateMachine {
  id: number;
  name: string;
  consumption: Consumption;
}
/** A cloud space of `billing/calculate`, machines keyed by the decimal string of their id. */
export interface CalculateCloudspace {
  id: number;
  name: string;
  consumption: Consumption;
  machines: Record<string, CalculateMachine>;
}
/** An account of `billing/calculate`, cloud spaces keyed by the decimal string of their id. */
export interface CalculateAccount {
  id: number;
  name: string;
  consumption: Consumption;
  cloudspaces: Record<string, CalculateCloudspace>;
}

/**
 * The shape of `billing/calculate` (docs/cli.md): `{ account }` with an account id, else the
 * whole environment `{ consumption }`.
 */
export type CalculateResult = { account: CalculateAccount } | { consumption: Consumption };

function consumptionOf(line: BillingLine | undefined, allUnits: boolean, withNu: boolean): Consumption {
  const units = (allUnits ? catalogUnits() : BASE_UNITS).filter((u) => withNu || !isVolume(u));
  const out: Consumption = {};
  for (const u of units) out[u] = line?.quantities[u] ?? 0;
  return out;
}

/**
 * The `billing/calculate` shape (docs/cli.md) of the period lines of `params` (at least those of
 * `calculateLevels(params)`): the consumption of `[start, end)` in unit-hours (or unit-months
 * with `per: "month"`), unrounded. With `accountId`: the account, its cloud spaces and their
 * machines (an entity appears when it has at least one sample in the period; an account without
 * samples has zero consumption and no cloud spaces). Without: the environment's total only
 * (zeros when the period has no samples).
 */
export function calculateOf(
  lines: readonly BillingLine[],
  params: Period,
  options: BillingOptions = {},
): CalculateResult {
  const resolved = resolveOptions(options);
  if (params.accountId === undefined) {
    const environment = lines.find((l) => l.level === "environment");
    return { consumption: consumptionOf(environment, resolved.allUnits, true) };
  }
  const accountLine = lines.find((l) => l.level === "account");
  const account: CalculateAccount = {
    id: params.accountId,
    name: nameOf(resolved.names, "account", params.accountId),
    consumption: consumptionOf(accountLine, resolved.allUnits, true),
    cloudspaces: {},
  };
  for (const line of lines) {
    if (line.level === "cloudspace") {
      account.cloudspaces[String(line.cloudspaceId)] = {
        id: line.cloudspaceId!,
        name: line.name,
        consumption: consumptionOf(line, resolved.allUnits, true),
        machines: {},
      };
    } else if (line.level === "machine") {
      const cloudspace = account.cloudspaces[String(line.cloudspaceId)];
      if (cloudspace) {
        cloudspace.machines[String(line.machineId)] = {
          id: line.machineId!,
          name: line.name,
          consumption: consumptionOf(line, resolved.allUnits, false),
        };
      }
    }
  }
  return { account };
}
