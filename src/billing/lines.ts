import type { UnitName } from "./unitNames.js";
import { catalogUnits } from "./unitCatalog.js";
import type { LineLevel } from "./levels.js";

/** The quantities of a line: unit-hours (or unit-months with `per: "month"`), NU in TiB transferred. */
export type Quantities = Record<UnitName, number>;
/** A machine's quantities: those of `Quantities`, but NU is null (a machine has no NU of its own; its NICs' is `ownNicNu`). */
export type MachineQuantities = Record<Exclude<UnitName, "NU">, number> & { NU: null };

/** What every billing line has, whatever its level. */
interface LineFigures<Q> {
  /** The hour's label (epoch seconds) of an hourly line; null for a period line. */
  hourEpoch: number | null;
  /** Name from the names file, `""` when unknown (the environment's is `""`; a gateway's is `"gateway"`). */
  name: string;
  /** Number of hourly samples of the entity in the period (1 for an hourly line). */
  sampleHours: number;
  /** The units, per `options.per`. */
  quantities: Q;
  /** Σ of the machines' CU at this level (equal to CU under `sum`; the check figure under `aggregate`). */
  cuSumOfMachines: number;
  /** The part of PIU that is the gateways' public IPs (0 for machines), in PIU-hours whatever `options.per`. */
  gatewayPiuHours: number;
  /** Unit-hours (NU: TiB), before any per-month division (what money is computed from). */
  unitHours: Q;
  /**
   * Showback CU (docs/formulas.md), per `options.per`: the account's CU allocated hour by hour to its
   * cloud spaces in proportion to their own CU, and on to their machines; equal to CU for
   * accounts and the environment. Adds up at every level, unlike own CU under `aggregate`.
   */
  cuAllocated: number;
  /** `cuAllocated` in CU-hours, whatever `options.per`. */
  cuAllocatedHours: number;
  /** NU (TiB) of the entity's own external NICs: a machine's, or a cloud space's gateway's; 0 above. */
  ownNicNu: number;
}

/** The whole environment: every account. */
export interface EnvironmentLine extends LineFigures<Quantities> {
  level: "environment";
  accountId: null;
  cloudspaceId: null;
  machineId: null;
}

/** One account. */
export interface AccountLine extends LineFigures<Quantities> {
  level: "account";
  accountId: number;
  cloudspaceId: null;
  machineId: null;
}

/** The period line of an account without samples: 0 of every unit of the catalog. */
export function emptyAccountLine(accountId: number, name: string): AccountLine {
  const zero = Object.fromEntries(catalogUnits().map((u) => [u, 0])) as Quantities;
  return {
    level: "account",
    accountId,
    cloudspaceId: null,
    machineId: null,
    hourEpoch: null,
    name,
    sampleHours: 0,
    quantities: zero,
    unitHours: zero,
    cuSumOfMachines: 0,
    gatewayPiuHours: 0,
    cuAllocated: 0,
    cuAllocatedHours: 0,
    ownNicNu: 0,
  };
}

/** One cloud space of an account. */
export interface CloudspaceLine extends LineFigures<Quantities> {
  level: "cloudspace";
  accountId: number;
  cloudspaceId: number;
  machineId: null;
}

/** A cloud space's gateway in showback (`BillingReport.lines`): its NU and public IP, beside the machines. */
export interface GatewayLine extends LineFigures<Quantities> {
  level: "gateway";
  accountId: number;
  cloudspaceId: number;
  machineId: null;
}

/** One machine of a cloud space. */
export interface MachineLine extends LineFigures<MachineQuantities> {
  level: "machine";
  accountId: number;
  cloudspaceId: number;
  machineId: number;
}

/**
 * One line: one entity at one level, over the period or in one hour. Narrow it by `level`
 * (`if (line.level === "machine") line.machineId` is a number) and the ids above the level
 * are numbers, those below null; quantities are numbers, but a machine's NU is null.
 */
export type BillingLine = EnvironmentLine | AccountLine | CloudspaceLine | GatewayLine | MachineLine;

/** The line of a level: `LineOf<"account">` is `AccountLine`. */
export type LineOf<L extends LineLevel> = Extract<BillingLine, { level: L }>;

/** The lines of one part of a period cut into parts (where prices change; at midnights): `[start, end)`, epoch seconds. */
export interface PeriodPart {
  start: number;
  end: number;
  /** The part's period lines, as `BilledPeriod.lines` are the period's. */
  lines: BillingLine[];
}
