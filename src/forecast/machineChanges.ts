import type { Names } from "../billing/names.js";
import { isoUtc } from "../base/time.js";
import { namesOf } from "./entityLabel.js";
import type { EntityUsage, UsageTable } from "./usageTable.js";

const HOUR = 3600;

/** A machine that appeared or disappeared while its account's files went on. */
export interface MachineChange {
  /** `machine-new:7:120:4392:2026-10-20T03:00:00Z`. */
  id: string;
  kind: "new" | "vanished";
  accountId: number;
  cloudspaceId: number;
  machineId: number;
  /** The machine's name; `accountName` and `cloudspaceName` those of its account and cloud space (`""` when unknown). */
  name: string;
  accountName: string;
  cloudspaceName: string;
  /** new: its first hour; vanished: the hour after its last one (epoch seconds). */
  at: number;
}

/** The first hour an entity has a line in the hours read, and the hour after its last (undefined when it has none). */
function spanOf(
  table: UsageTable,
  entity: EntityUsage,
  read: { from: number; to: number },
): { first: number; gone: number } | undefined {
  let first = -1;
  let last = -1;
  for (let h = read.from; h < read.to; h++) {
    if (!table.held(entity, h)) continue;
    if (first < 0) first = h;
    last = h;
  }
  return first < 0 ? undefined : { first: table.start + first * HOUR, gone: table.start + (last + 1) * HOUR };
}

/** Machines first seen in `[start, end)` after their account's first hour read, and those last seen before their account's last hour. */
export function machineChanges(
  table: UsageTable,
  scan: { start: number; end: number; names: Names | undefined },
  read: { from: number; to: number },
): MachineChange[] {
  const { start, end } = scan;
  const accountSpan = new Map<number, { first: number; gone: number }>();
  for (const e of table.entities) {
    const span = e.level === "account" && e.accountId !== null ? spanOf(table, e, read) : undefined;
    if (span) accountSpan.set(e.accountId!, span);
  }
  const changes: MachineChange[] = [];
  for (const e of table.entities) {
    if (e.level !== "machine" || e.accountId === null || e.cloudspaceId === null || e.machineId === null) continue;
    const account = accountSpan.get(e.accountId);
    const span = spanOf(table, e, read);
    if (!account || !span) continue;
    const { first, gone } = span;
    const named = namesOf(e, scan.names);
    const base = {
      accountId: e.accountId,
      cloudspaceId: e.cloudspaceId,
      machineId: e.machineId,
      name: named.name,
      accountName: named.accountName,
      cloudspaceName: named.cloudspaceName!,
    };
    if (first >= start && first < end && first > account.first)
      changes.push({ id: `machine-new:${e.key.slice(8)}:${isoUtc(first)}`, kind: "new", ...base, at: first });
    if (gone >= start && gone < end && gone <= account.gone - HOUR)
      changes.push({ id: `machine-vanished:${e.key.slice(8)}:${isoUtc(gone)}`, kind: "vanished", ...base, at: gone });
  }
  return changes.sort((a, b) => a.at - b.at || a.machineId - b.machineId);
}
