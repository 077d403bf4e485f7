import type { RecordVisitor } from "./visitRecords.js";
import type { CloudSpace, ConfiguredIops, Disk, Nic, VMachine } from "./records.js";

/**
 * Builds the plain records of `records.ts` from a walk of `visitRecords.ts`. A machine's NICs
 * and disks arrive before it, a cloud space's machines before it, so each is collected in
 * arrival order (ids may repeat) until its owner arrives and takes the list.
 */
export class RecordBuilder implements RecordVisitor {
  /** The cloud spaces visited so far, in order. */
  readonly cloudspaces: CloudSpace[] = [];
  private machines: VMachine[] = [];
  private nics: Nic[] = [];
  private disks: Disk[] = [];

  nic(
    _cloudSpaceId: number,
    _machineId: number,
    _machineType: string,
    _index: number,
    id: number,
    type: string,
    bytes: Float64Array,
  ): void {
    this.nics.push({ id, type, tx: Math.fround(bytes[0]!), rx: Math.fround(bytes[1]!) });
  }

  disk(
    _cloudSpaceId: number,
    _machineId: number,
    _index: number,
    id: number,
    measures: Float64Array,
    configuredIops: Float64Array | null,
  ): void {
    this.disks.push({
      id,
      // Math.fround: a whole number as a small integer, not a heap number (see `toConfiguredIops`)
      size: Math.fround(measures[0]!),
      iopsRead: Math.fround(measures[1]!),
      iopsWrite: Math.fround(measures[2]!),
      iopsReadMax: Math.fround(measures[3]!),
      iopsWriteMax: Math.fround(measures[4]!),
      configuredIops: configuredIops === null ? null : toConfiguredIops(configuredIops),
    });
  }

  machine(
    _cloudSpaceId: number,
    id: number,
    type: string,
    vcpus: number,
    measures: Float64Array,
    imageName: string,
    status: string,
  ): void {
    const cpuMinutes = Math.fround(measures[0]!);
    const mem = Math.fround(measures[1]!);
    this.machines.push({ id, type, vcpus, cpuMinutes, mem, networks: this.nics, disks: this.disks, imageName, status });
    this.nics = [];
    this.disks = [];
  }

  cloudSpace(cloudSpaceId: number, accountId: number, state: string): void {
    this.cloudspaces.push({ cloudSpaceId, accountId, machines: this.machines, state });
    this.machines = [];
  }
}

/**
 * Copies the visitor's scratch array of limits (field order of `CONFIGURED_IOPS_FIELDS`).
 * `Math.fround` leaves each value as it is (each is a Float32 of the file) but, as reading the
 * file does, returns a whole number as a small integer, where a Float64Array element is always
 * a heap number: the many whole limits (0, 4096, ...) then cost no allocation (a faster decode: docs/performance.md).
 */
function toConfiguredIops(limits: Float64Array): ConfiguredIops {
  return {
    totalBytesSec: Math.fround(limits[0]!),
    readBytesSec: Math.fround(limits[1]!),
    writeBytesSec: Math.fround(limits[2]!),
    totalIopsSec: Math.fround(limits[3]!),
    readIopsSec: Math.fround(limits[4]!),
    writeIopsSec: Math.fround(limits[5]!),
    totalBytesSecMax: Math.fround(limits[6]!),
    readBytesSecMax: Math.fround(limits[7]!),
    writeBytesSecMax: Math.fround(limits[8]!),
    totalIopsSecMax: Math.fround(limits[9]!),
    readIopsSecMax: Math.fround(limits[10]!),
    writeIopsSecMax: Math.fround(limits[11]!),
    sizeIopsSec: Math.fround(limits[12]!),
  };
}
