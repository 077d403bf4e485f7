/** What part of a machine a numeric field belongs to. */
export type ImpossiblePart = "machine" | "disk" | "nic";

/** One impossible value: where it is (file, account, hour, cloud space, machine, disk or NIC) and what it is. */
export interface ImpossibleValue {
  /** Display name of the file: a path, or archive!entry. */
  file: string;
  accountId: number;
  hourEpoch: number;
  cloudspaceId: number;
  machineId: number;
  /** `vm`, `routeros` (the cloud space's gateway), ... */
  machineType: string;
  part: ImpossiblePart;
  /** Disk or NIC: position in the machine's list; null for the machine's own fields. */
  index: number | null;
  /** Disk or NIC: its id; null for the machine's own fields. */
  partId: number | null;
  /** NIC: its type (`external`, `space`, ...); null otherwise. */
  nicType: string | null;
  /** The schema's field name, e.g. `mem`, `configuredIops.totalIopsSec`. */
  field: string;
  /** The warehouse column, e.g. `mem_mb`. */
  column: string;
  /** The value as found: `NaN`, `Infinity`, `-Infinity`, `-128`. */
  value: string;
}
