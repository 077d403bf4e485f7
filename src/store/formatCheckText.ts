import type { CheckReport } from "./checkWarehouse.js";
import { describeImpossible } from "../load/impossibleValues.js";

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The `check` report as text for a terminal: one section per finding, "none" when clean. */
export function formatCheckText(report: CheckReport): string {
  const out: string[] = [];
  out.push(`accounts: ${report.accounts.length}`);
  for (const a of report.accounts) {
    // the span half-open like the missing ranges under it, so held + missing = its hours
    const end = new Date(Date.parse(a.lastHour) + 3600_000).toISOString().replace(".000Z", "Z");
    const span = (Date.parse(a.lastHour) - Date.parse(a.firstHour)) / 3600_000 + 1;
    const lost = a.lostHours > 0 ? ` (${a.lostHours} of them lost at source)` : "";
    const future =
      a.futureHours > 0 ? `; ${plural(a.futureHours, "hour")} later than the current hour, not counted` : "";
    out.push(
      `  account ${a.accountId}: [${a.firstHour}, ${end}) ${plural(span, "hour")}: ${a.hours} held, ${a.missingHours} missing${lost}${future}`,
    );
    for (const m of a.missing) out.push(`    missing [${m.from}, ${m.till}) ${plural(m.hours, "hour")}`);
    for (const m of a.lost)
      out.push(
        `    lost at source (never written within the platform's retention) [${m.from}, ${m.till}) ${plural(m.hours, "hour")}`,
      );
  }
  out.push(`byte-identical duplicates dropped: ${report.duplicates.length}`);
  for (const d of report.duplicates.slice(0, 20)) out.push(`  ${d}`);
  if (report.duplicates.length > 20) out.push(`  ... and ${report.duplicates.length - 20} more`);
  out.push(`conflicts (different files for one account-hour, none of them loaded): ${report.conflicts.length}`);
  for (const c of report.conflicts) out.push(`  ${c.file}: ${c.reason}`);
  out.push(`unreadable files: ${report.unreadable.length}`);
  for (const u of report.unreadable) out.push(`  ${u.file}: ${u.reason} [${u.code}]`);
  out.push(`ignored paths (not consumption files): ${report.ignoredPaths}`);
  out.push(
    `copies Syncthing left (.stversions folders, sync-conflict files; never read): ${report.syncthingCopies.length}`,
  );
  for (const c of report.syncthingCopies.slice(0, 20)) out.push(`  ${c}`);
  if (report.syncthingCopies.length > 20) out.push(`  ... and ${report.syncthingCopies.length - 20} more`);
  out.push(`unknown machine types (kept, not billed as VMs): ${report.unknownMachineTypes.length === 0 ? "none" : ""}`);
  for (const t of report.unknownMachineTypes)
    out.push(
      `  ${JSON.stringify(t.type)}: ${plural(t.machines, "machine")}, ${plural(t.machineHours, "machine-hour")}`,
    );
  out.push(`machines with 0 vCPUs or 0 memory: ${report.zeroResources.length === 0 ? "none" : ""}`);
  for (const z of report.zeroResources) {
    out.push(
      `  account ${z.accountId} cloud space ${z.cloudspaceId} machine ${z.machineId}: 0 vCPUs in ${plural(z.zeroVcpusHours, "hour")}, 0 memory in ${plural(z.zeroMemoryHours, "hour")}, from ${z.firstHour}`,
    );
  }
  const q = report.nicIdsAllZero;
  out.push(
    q.machineHours > 0
      ? `NIC ids: all 0 in ${q.machineHours} of ${q.ofMachineHoursWithSeveralNics} machine-hours with several NICs (a known platform quirk; NICs are told apart by their position)`
      : "NIC ids: no machine-hour with several NICs has them all 0",
  );
  out.push(
    `NIC id collisions (non-zero ids shared in one machine-hour): ${report.nicIdCollisions.length === 0 ? "none" : ""}`,
  );
  for (const c of report.nicIdCollisions) {
    out.push(
      `  account ${c.accountId} ${c.hour} cloud space ${c.cloudspaceId} ${c.isGateway ? "gateway" : "machine"} ${c.machineId}: ${c.nics} NICs with id ${c.nicId}`,
    );
  }
  const e = report.emptyRecords;
  out.push(
    `empty records (no id, no type or state: a damaged file?): ${e.machineHours + e.cloudSpaceHours === 0 ? "none" : `${plural(e.machineHours, "machine-hour")}, ${plural(e.cloudSpaceHours, "cloud-space-hour")}`}`,
  );
  if (report.accountIdMismatches.length > 0) {
    out.push(`files naming another account than their path: ${report.accountIdMismatches.length}`);
    for (const m of report.accountIdMismatches)
      out.push(`  account ${m.accountId} ${m.hour}: the file says account ${m.fileAccountId}`);
  }
  out.push(
    `impossible values (NaN, infinite or negative; null in the tables, billing refuses them without skipBad: true): ${report.impossibleValues.length === 0 ? "none" : report.impossibleValues.length}`,
  );
  for (const v of report.impossibleValues) out.push(`  ${describeImpossible(v)}`);
  out.push(
    !report.readable
      ? "result: some files could not be used (exit 3)"
      : report.impossibleValues.length > 0
        ? "result: every file was readable; some hold impossible values (exit 3)"
        : "result: every file was readable",
  );
  return `${out.join("\n")}\n`;
}
