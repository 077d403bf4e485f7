import * as L from "./layout.js";
import type { MessageReader } from "./MessageReader.js";
import { TextCache } from "./TextCache.js";

/** The numbers of a disk record, in the order `RecordVisitor.disk` gets them. */
export const DISK_MEASURES = ["size", "iopsRead", "iopsWrite", "iopsReadMax", "iopsWriteMax"] as const;
/** A machine's two Float32 fields, in the order `RecordVisitor.machine` gets them. */
export const MACHINE_MEASURES = ["cpuMinutes", "mem"] as const;
/** A NIC's two byte counts, in the order `RecordVisitor.nic` gets them. */
export const NIC_MEASURES = ["tx", "rx"] as const;

/**
 * Receives the records of one message as they are read, without building them: the store
 * stages them straight into columns, `RecordBuilder` makes the plain records of `records.ts`.
 * A machine's NICs and disks come before the machine itself, a cloud space's machines before
 * the cloud space (the order their fields are read in). A field outside its struct's data
 * section reads as 0, a pointer past its pointer section as the default ("", no rows, null).
 *
 * The Float32 fields come in scratch arrays, valid during the call only: a fractional number
 * passed as an argument to a call the compiler does not inline is allocated each time, and a
 * week has a few machines, NICs and disks per machine-hour.
 */
export interface RecordVisitor {
  /** `bytes`: the NIC's tx and rx (`NIC_MEASURES` order), a scratch array. */
  nic(
    cloudSpaceId: number,
    machineId: number,
    machineType: string,
    index: number,
    id: number,
    type: string,
    bytes: Float64Array,
  ): void;
  /**
   * `measures`: the disk's size, iopsRead, iopsWrite, iopsReadMax and iopsWriteMax (`DISK_MEASURES`
   * order); `configuredIops`: the 13 limits in field order, null when the pointer is null. Both
   * are scratch arrays.
   */
  disk(
    cloudSpaceId: number,
    machineId: number,
    index: number,
    id: number,
    measures: Float64Array,
    configuredIops: Float64Array | null,
  ): void;
  /** `measures`: the machine's cpuMinutes and mem (`MACHINE_MEASURES` order), a scratch array. */
  machine(
    cloudSpaceId: number,
    id: number,
    type: string,
    vcpus: number,
    measures: Float64Array,
    imageName: string,
    status: string,
  ): void;
  cloudSpace(cloudSpaceId: number, accountId: number, state: string): void;
}

// One cache per Text field: their values repeat from machine to machine and file to file.
const cloudSpaceState = new TextCache();
const machineType = new TextCache();
const machineImageName = new TextCache();
const machineStatus = new TextCache();
const nicType = new TextCache();
const limits = new Float64Array(L.CONFIGURED_IOPS_FIELDS.length);
const diskMeasures = new Float64Array(DISK_MEASURES.length);
const machineMeasures = new Float64Array(MACHINE_MEASURES.length);
const nicBytes = new Float64Array(NIC_MEASURES.length);

// The walkers below read one struct each. A struct is given by its segment, its data
// section's byte offset, its data size in bytes and its pointer count, all taken from the
// pointer that reached it. `depth` is the struct's nesting.

/** Visits the root `Account`; returns its `accountId` and number of cloud spaces (0 and 0 for a null root). */
export function visitAccountRoot(m: MessageReader, visitor: RecordVisitor): { accountId: number; cloudspaces: number } {
  if (!m.struct(0, m.rootPointer(), 1)) return { accountId: 0, cloudspaces: 0 };
  const view = m.view;
  const segment = m.segment;
  const position = m.position;
  const dataBytes = m.dataBytes;
  const pointers = position + dataBytes;
  const accountId = dataBytes >= L.ACCOUNT_ACCOUNT_ID + 4 ? view.getUint32(position + L.ACCOUNT_ACCOUNT_ID, true) : 0;
  const cloudspaces =
    m.pointerCount > L.ACCOUNT_CLOUDSPACES
      ? visitCloudSpaces(m, visitor, segment, pointers + 8 * L.ACCOUNT_CLOUDSPACES, 2)
      : 0;
  return { accountId, cloudspaces };
}

/** Visits a root `CloudSpace` (a controller's per-cloud-space file). */
export function visitCloudSpaceRoot(m: MessageReader, visitor: RecordVisitor): void {
  if (!m.struct(0, m.rootPointer(), 1)) visitCloudSpace(m, visitor, 0, 0, 0, 0, 1);
  else visitCloudSpace(m, visitor, m.segment, m.position, m.dataBytes, m.pointerCount, 1);
}

function visitCloudSpaces(
  m: MessageReader,
  visitor: RecordVisitor,
  segment: number,
  pointer: number,
  depth: number,
): number {
  if (!m.structList(segment, pointer, depth, L.CLOUDSPACE_WORDS)) return 0;
  const { segment: s, position, count, stepBytes, dataBytes, pointerCount } = m;
  for (let i = 0; i < count; i++)
    visitCloudSpace(m, visitor, s, position + i * stepBytes, dataBytes, pointerCount, depth + 1);
  return count;
}

function visitCloudSpace(
  m: MessageReader,
  visitor: RecordVisitor,
  segment: number,
  position: number,
  dataBytes: number,
  pointerCount: number,
  depth: number,
): void {
  const view = m.view;
  const pointers = position + dataBytes;
  const cloudSpaceId =
    dataBytes >= L.CLOUDSPACE_CLOUD_SPACE_ID + 4 ? view.getInt32(position + L.CLOUDSPACE_CLOUD_SPACE_ID, true) : 0;
  const accountId =
    dataBytes >= L.CLOUDSPACE_ACCOUNT_ID + 4 ? view.getInt32(position + L.CLOUDSPACE_ACCOUNT_ID, true) : 0;
  if (pointerCount > L.CLOUDSPACE_MACHINES)
    visitMachines(m, visitor, cloudSpaceId, segment, pointers + 8 * L.CLOUDSPACE_MACHINES, depth + 1);
  const state =
    pointerCount > L.CLOUDSPACE_STATE ? m.text(segment, pointers + 8 * L.CLOUDSPACE_STATE, cloudSpaceState) : "";
  visitor.cloudSpace(cloudSpaceId, accountId, state);
}

function visitMachines(
  m: MessageReader,
  visitor: RecordVisitor,
  cloudSpaceId: number,
  segment: number,
  pointer: number,
  depth: number,
): void {
  if (!m.structList(segment, pointer, depth, L.VMACHINE_WORDS)) return;
  const { segment: s, position, count, stepBytes, dataBytes, pointerCount } = m;
  for (let i = 0; i < count; i++) {
    visitMachine(m, visitor, cloudSpaceId, s, position + i * stepBytes, dataBytes, pointerCount, depth + 1);
  }
}

function visitMachine(
  m: MessageReader,
  visitor: RecordVisitor,
  cloudSpaceId: number,
  segment: number,
  position: number,
  dataBytes: number,
  pointerCount: number,
  depth: number,
): void {
  const view = m.view;
  const pointers = position + dataBytes;
  const measures = machineMeasures;
  let id = 0;
  let vcpus = 0;
  if (dataBytes >= L.VMACHINE_DATA_BYTES) {
    id = view.getInt32(position + L.VMACHINE_ID, true);
    vcpus = view.getInt8(position + L.VMACHINE_VCPUS);
    measures[0] = view.getFloat32(position + L.VMACHINE_CPU_MINUTES, true);
    measures[1] = view.getFloat32(position + L.VMACHINE_MEM, true);
  } else {
    measures.fill(0);
    if (dataBytes >= L.VMACHINE_ID + 4) id = view.getInt32(position + L.VMACHINE_ID, true);
    if (dataBytes >= L.VMACHINE_VCPUS + 1) vcpus = view.getInt8(position + L.VMACHINE_VCPUS);
    if (dataBytes >= L.VMACHINE_CPU_MINUTES + 4) measures[0] = view.getFloat32(position + L.VMACHINE_CPU_MINUTES, true);
  }
  const type = pointerCount > L.VMACHINE_TYPE ? m.text(segment, pointers + 8 * L.VMACHINE_TYPE, machineType) : "";
  if (pointerCount > L.VMACHINE_NETWORKS)
    visitNics(m, visitor, cloudSpaceId, id, type, segment, pointers + 8 * L.VMACHINE_NETWORKS, depth + 1);
  if (pointerCount > L.VMACHINE_DISKS)
    visitDisks(m, visitor, cloudSpaceId, id, segment, pointers + 8 * L.VMACHINE_DISKS, depth + 1);
  const imageName =
    pointerCount > L.VMACHINE_IMAGE_NAME ? m.text(segment, pointers + 8 * L.VMACHINE_IMAGE_NAME, machineImageName) : "";
  const status =
    pointerCount > L.VMACHINE_STATUS ? m.text(segment, pointers + 8 * L.VMACHINE_STATUS, machineStatus) : "";
  visitor.machine(cloudSpaceId, id, type, vcpus, measures, imageName, status);
}

function visitNics(
  m: MessageReader,
  visitor: RecordVisitor,
  cloudSpaceId: number,
  machineId: number,
  machineType: string,
  segment: number,
  pointer: number,
  depth: number,
): void {
  if (!m.structList(segment, pointer, depth, L.NIC_WORDS)) return;
  const { segment: s, position, count, stepBytes, dataBytes, pointerCount } = m;
  const view = m.view;
  for (let i = 0; i < count; i++) {
    const at = position + i * stepBytes;
    const bytes = nicBytes;
    let id = 0;
    if (dataBytes >= L.NIC_DATA_BYTES) {
      id = view.getInt32(at + L.NIC_ID, true);
      bytes[0] = view.getFloat32(at + L.NIC_TX, true);
      bytes[1] = view.getFloat32(at + L.NIC_RX, true);
    } else {
      bytes.fill(0);
      if (dataBytes >= L.NIC_ID + 4) id = view.getInt32(at + L.NIC_ID, true);
      if (dataBytes >= L.NIC_TX + 4) bytes[0] = view.getFloat32(at + L.NIC_TX, true);
    }
    const type = pointerCount > L.NIC_TYPE ? m.text(s, at + dataBytes + 8 * L.NIC_TYPE, nicType) : "";
    visitor.nic(cloudSpaceId, machineId, machineType, i, id, type, bytes);
  }
}

function visitDisks(
  m: MessageReader,
  visitor: RecordVisitor,
  cloudSpaceId: number,
  machineId: number,
  segment: number,
  pointer: number,
  depth: number,
): void {
  if (!m.structList(segment, pointer, depth, L.DISK_WORDS)) return;
  const { segment: s, position, count, stepBytes, dataBytes, pointerCount } = m;
  const view = m.view;
  for (let i = 0; i < count; i++) {
    const at = position + i * stepBytes;
    const measures = diskMeasures;
    let id = 0;
    if (dataBytes >= L.DISK_DATA_BYTES) {
      id = view.getInt32(at + L.DISK_ID, true);
      measures[0] = view.getFloat32(at + L.DISK_SIZE, true);
      measures[1] = view.getFloat32(at + L.DISK_IOPS_READ, true);
      measures[2] = view.getFloat32(at + L.DISK_IOPS_WRITE, true);
      measures[3] = view.getFloat32(at + L.DISK_IOPS_READ_MAX, true);
      measures[4] = view.getFloat32(at + L.DISK_IOPS_WRITE_MAX, true);
    } else {
      measures.fill(0);
      if (dataBytes >= L.DISK_ID + 4) id = view.getInt32(at + L.DISK_ID, true);
      if (dataBytes >= L.DISK_SIZE + 4) measures[0] = view.getFloat32(at + L.DISK_SIZE, true);
      if (dataBytes >= L.DISK_IOPS_READ + 4) measures[1] = view.getFloat32(at + L.DISK_IOPS_READ, true);
      if (dataBytes >= L.DISK_IOPS_WRITE + 4) measures[2] = view.getFloat32(at + L.DISK_IOPS_WRITE, true);
      if (dataBytes >= L.DISK_IOPS_READ_MAX + 4) measures[3] = view.getFloat32(at + L.DISK_IOPS_READ_MAX, true);
    }
    let configured: Float64Array | null = null;
    if (pointerCount > L.DISK_CONFIGURED_IOPS && m.struct(s, at + dataBytes + 8 * L.DISK_CONFIGURED_IOPS, depth + 2)) {
      configured = readLimits(view, m.position, m.dataBytes);
    }
    visitor.disk(cloudSpaceId, machineId, i, id, measures, configured);
  }
}

/** Reads a `ConfiguredIopsStruct` into the scratch array `limits` (its own function: the walk is faster so). */
function readLimits(view: DataView, at: number, dataBytes: number): Float64Array {
  const out = limits;
  if (dataBytes >= L.CONFIGURED_IOPS_DATA_BYTES) {
    for (let f = 0; f < 13; f++) out[f] = view.getFloat32(at + 4 * f, true);
  } else {
    for (let f = 0; f < 13; f++) out[f] = dataBytes >= 4 * f + 4 ? view.getFloat32(at + 4 * f, true) : 0;
  }
  return out;
}
