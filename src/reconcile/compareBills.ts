import { RECONCILED_UNITS, type AccountTree, type Figures, type ReconciledUnit } from "./billTree.js";

/** The level of a reconciled entity. */
export type ReconcileLevel = "environment" | "account" | "cloudspace" | "machine";

/** Why a row is in the table: a figure beyond the tolerance, or an entity (or figure) on one side only. */
export type ReconcileIssue = "differs" | "only-ours" | "only-platform";

/** One figure that does not reconcile. */
export interface ReconcileRow {
  level: ReconcileLevel;
  accountId: number | null;
  cloudspaceId: number | null;
  machineId: number | null;
  /** The platform's name of the entity, else ours, else "". */
  name: string;
  unit: ReconciledUnit;
  /** Our figure, unit-hours (NU: TiB); null when we have no such entity or figure. */
  ours: number | null;
  /** The platform's figure; null when it has no such entity or figure. */
  platform: number | null;
  /** ours − platform, a missing side counting 0. */
  difference: number;
  /** |ours − platform| / max(|ours|, |platform|); null when a side is missing. */
  relativeDifference: number | null;
  issue: ReconcileIssue;
}

/** What was compared, for the summary. */
export interface ComparedCounts {
  entities: number;
  figures: number;
}

/** Comparing two bills entity by entity: the rows collected and what was compared. */
export interface BillComparison {
  readonly rows: ReconcileRow[];
  readonly compared: ComparedCounts;
  /** Compares one entity's figures; `ours` or `platform` undefined when that side lacks the entity. */
  entity(
    level: ReconcileLevel,
    ids: { accountId?: number; cloudspaceId?: number; machineId?: number },
    name: string,
    ours: Figures | undefined,
    platform: Figures | undefined,
  ): void;
  /** Compares an account, its cloud spaces and their machines (either side may lack any of them). */
  account(accountId: number, ours: AccountTree, platform: AccountTree): void;
}

/**
 * A new comparison. A figure agrees when |ours − platform| ≤ tolerance × max(|ours|, |platform|)
 * (`tolerance` relative, so 0 = 0 agrees); an entity or figure on one side only never does.
 */
export function compareBills(tolerance: number): BillComparison {
  const rows: ReconcileRow[] = [];
  const compared: ComparedCounts = { entities: 0, figures: 0 };
  const entity: BillComparison["entity"] = (level, ids, name, ours, platform) => {
    compared.entities++;
    const units = RECONCILED_UNITS.filter((u) => level !== "machine" || u !== "NU");
    for (const unit of units) {
      const o = ours?.[unit];
      const p = platform?.[unit];
      if (o === undefined && p === undefined) continue;
      compared.figures++;
      const base = {
        level,
        accountId: ids.accountId ?? null,
        cloudspaceId: ids.cloudspaceId ?? null,
        machineId: ids.machineId ?? null,
        name,
        unit,
      };
      if (o === undefined || p === undefined) {
        rows.push({
          ...base,
          ours: o ?? null,
          platform: p ?? null,
          difference: (o ?? 0) - (p ?? 0),
          relativeDifference: null,
          issue: o === undefined ? "only-platform" : "only-ours",
        });
        continue;
      }
      const scale = Math.max(Math.abs(o), Math.abs(p));
      const difference = o - p;
      if (Math.abs(difference) > tolerance * scale) {
        rows.push({
          ...base,
          ours: o,
          platform: p,
          difference,
          relativeDifference: Math.abs(difference) / scale,
          issue: "differs",
        });
      }
    }
  };
  const account: BillComparison["account"] = (accountId, ours, platform) => {
    entity("account", { accountId }, platform.name || ours.name, ours.consumption, platform.consumption);
    const spaceIds = [...new Set([...ours.cloudspaces.keys(), ...platform.cloudspaces.keys()])].sort((a, b) => a - b);
    for (const cloudspaceId of spaceIds) {
      const o = ours.cloudspaces.get(cloudspaceId);
      const p = platform.cloudspaces.get(cloudspaceId);
      entity("cloudspace", { accountId, cloudspaceId }, p?.name || o?.name || "", o?.consumption, p?.consumption);
      const machineIds = [...new Set([...(o?.machines.keys() ?? []), ...(p?.machines.keys() ?? [])])].sort(
        (a, b) => a - b,
      );
      for (const machineId of machineIds) {
        const om = o?.machines.get(machineId);
        const pm = p?.machines.get(machineId);
        entity(
          "machine",
          { accountId, cloudspaceId, machineId },
          pm?.name || om?.name || "",
          om?.consumption,
          pm?.consumption,
        );
      }
    }
  };
  return { rows, compared, entity, account };
}
