/**
 * Plain records decoded from a consumption file (schema/resourcemonitoring.capnp).
 * Field names follow the schema; units are those of docs/input.md.
 */

/** A disk's configured limits; every field is a Float32 of the file. */
export interface ConfiguredIops {
  totalBytesSec: number;
  readBytesSec: number;
  writeBytesSec: number;
  totalIopsSec: number;
  readIopsSec: number;
  writeIopsSec: number;
  totalBytesSecMax: number;
  readBytesSecMax: number;
  writeBytesSecMax: number;
  totalIopsSecMax: number;
  readIopsSecMax: number;
  writeIopsSecMax: number;
  sizeIopsSec: number;
}

/** A virtual disk in one hour. */
export interface Disk {
  id: number;
  /** Allocated size, GB. */
  size: number;
  /** Average read IOPS in the hour. */
  iopsRead: number;
  /** Average write IOPS in the hour. */
  iopsWrite: number;
  iopsReadMax: number;
  iopsWriteMax: number;
  /** The disk's limits; `null` when the pointer is null (files of the older schema). */
  configuredIops: ConfiguredIops | null;
}

/** A network interface in one hour. */
export interface Nic {
  id: number;
  /** `external`, `space`, ... */
  type: string;
  /** Bytes sent in the hour. */
  tx: number;
  /** Bytes received in the hour. */
  rx: number;
}

/** A machine in one hour: a VM (`type = "vm"`) or a gateway (`type = "routeros"`). */
export interface VMachine {
  id: number;
  type: string;
  vcpus: number;
  /** CPU-minutes used in the hour. */
  cpuMinutes: number;
  /** Allocated memory, MB. */
  mem: number;
  networks: Nic[];
  disks: Disk[];
  imageName: string;
  status: string;
}

/** A cloud space in one hour. */
export interface CloudSpace {
  cloudSpaceId: number;
  accountId: number;
  machines: VMachine[];
  state: string;
}

/** The root of an hourly consumption file. */
export interface Account {
  accountId: number;
  cloudspaces: CloudSpace[];
}

/** A decoded account-hour, ready to load. */
export interface DecodedAccountHour {
  /** From the path (docs/input.md: ids and hours are always taken from the path). */
  accountId: number;
  hourEpoch: number;
  /** `Account.accountId` of the file; `null` when the hour was made from CloudSpace files. */
  rootAccountId: number | null;
  account: Account;
}
