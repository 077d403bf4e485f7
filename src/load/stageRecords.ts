import { CONFIGURED_IOPS_FIELDS } from "../capnp/layout.js";
import type { DecodedAccountHour } from "../capnp/records.js";
import { DISK_MEASURES, MACHINE_MEASURES, NIC_MEASURES } from "../capnp/visitRecords.js";
import type { ColumnBatch, ColumnSelection } from "./columnBatch.js";
import { ColumnBuilder } from "./ColumnBuilder.js";
import type { DataTable } from "./dataTables.js";
import type { ImpossibleValue } from "./impossibleValues.js";

/** Scratch for one disk's configured limits, in field order, for its measures, a machine's and a NIC's (see `RecordVisitor`). */
const limits = new Float64Array(CONFIGURED_IOPS_FIELDS.length);
const measures = new Float64Array(DISK_MEASURES.length);
const machineMeasures = new Float64Array(MACHINE_MEASURES.length);
const nicBytes = new Float64Array(NIC_MEASURES.length);

/**
 * Stages decoded account-hours column by column for the given tables (the records'
 * counterpart of decoding straight into a {@link ColumnBuilder}).
 */
export function buildColumns(
  hours: readonly DecodedAccountHour[],
  tables: ReadonlySet<DataTable>,
  selection?: ColumnSelection,
): ColumnBatch {
  return stageRecords(hours, tables, selection).batch;
}

/**
 * {@link buildColumns}, with the impossible values found; `files[i]`: the display names of
 * the files of `hours[i]` (default: none, the file is then "").
 */
export function stageRecords(
  hours: readonly DecodedAccountHour[],
  tables: ReadonlySet<DataTable>,
  selection?: ColumnSelection,
  files: readonly (readonly string[])[] = [],
): { batch: ColumnBatch; impossible: ImpossibleValue[] } {
  const builder = new ColumnBuilder(tables, 0, selection);
  hours.forEach((h, hourIndex) => {
    builder.beginHour(h.accountId, h.hourEpoch, files[hourIndex]);
    for (const space of h.account.cloudspaces) {
      const csId = space.cloudSpaceId;
      for (const m of space.machines) {
        m.networks.forEach((n, i) => {
          NIC_MEASURES.forEach((name, f) => (nicBytes[f] = n[name]));
          builder.nic(csId, m.id, m.type, i, n.id, n.type, nicBytes);
        });
        m.disks.forEach((d, i) => {
          const q = d.configuredIops;
          if (q !== null) CONFIGURED_IOPS_FIELDS.forEach((name, f) => (limits[f] = q[name]));
          DISK_MEASURES.forEach((name, f) => (measures[f] = d[name]));
          builder.disk(csId, m.id, i, d.id, measures, q === null ? null : limits);
        });
        MACHINE_MEASURES.forEach((name, f) => (machineMeasures[f] = m[name]));
        builder.machine(csId, m.id, m.type, m.vcpus, machineMeasures, m.imageName, m.status);
      }
      builder.cloudSpace(csId, space.accountId, space.state);
    }
    builder.endHour(h.rootAccountId, h.account.cloudspaces.length);
  });
  return { batch: builder.finish(), impossible: [...builder.impossibleValues] };
}
