import * as L from "./layout.js";
import type { MessageReader } from "./MessageReader.js";
import type { Account, CloudSpace, ConfiguredIops, Disk, Nic, VMachine } from "./records.js";
import { TextCache } from "./TextCache.js";

// One cache per Text field: their values repeat from machine to machine and file to file.
const cloudSpaceState = new TextCache();
const machineType = new TextCache();
const machineImageName = new TextCache();
const machineStatus = new TextCache();
const nicType = new TextCache();

// The walkers below read one struct each. A struct is given by its segment, its data
// section's byte offset, its data size in bytes and its pointer count, all taken from the
// pointer that reached it; a field outside the struct's data section reads as 0, a pointer
// past its pointer section as the default ("", [], null). `depth` is the struct's nesting.

/** Reads the root `Account`; the root pointer may be null (an all-default account). */
export function readAccountRoot(m: MessageReader): Account {
  if (!m.struct(0, m.rootPointer(), 1)) return { accountId: 0, cloudspaces: [] };
  const view = m.view;
  const segment = m.segment;
  const position = m.position;
  const dataBytes = m.dataBytes;
  const pointers = position + dataBytes;
  return {
    accountId: dataBytes >= L.ACCOUNT_ACCOUNT_ID + 4 ? view.getUint32(position + L.ACCOUNT_ACCOUNT_ID, true) : 0,
    cloudspaces: m.pointerCount > L.ACCOUNT_CLOUDSPACES ? readCloudSpaces(m, segment, pointers + 8 * L.ACCOUNT_CLOUDSPACES, 2) : [],
  };
}

/** Reads a root `CloudSpace` (a controller's per-cloud-space file). */
export function readCloudSpaceRoot(m: MessageReader): CloudSpace {
  if (!m.struct(0, m.rootPointer(), 1)) return readCloudSpace(m, 0, 0, 0, 0, 1);
  return readCloudSpace(m, m.segment, m.position, m.dataBytes, m.pointerCount, 1);
}

function readCloudSpaces(m: MessageReader, segment: number, pointer: number, depth: number): CloudSpace[] {
  const out: CloudSpace[] = [];
  if (!m.structList(segment, pointer, depth, L.CLOUDSPACE_WORDS)) return out;
  const { segment: s, position, count, stepBytes, dataBytes, pointerCount } = m;
  for (let i = 0; i < count; i++) {
    out.push(readCloudSpace(m, s, position + i * stepBytes, dataBytes, pointerCount, depth + 1));
  }
  return out;
}

function readCloudSpace(
  m: MessageReader, segment: number, position: number, dataBytes: number, pointerCount: number, depth: number,
): CloudSpace {
  const view = m.view;
  const pointers = position + dataBytes;
  return {
    cloudSpaceId: dataBytes >= L.CLOUDSPACE_CLOUD_SPACE_ID + 4 ? view.getInt32(position + L.CLOUDSPACE_CLOUD_SPACE_ID, true) : 0,
    accountId: dataBytes >= L.CLOUDSPACE_ACCOUNT_ID + 4 ? view.getInt32(position + L.CLOUDSPACE_ACCOUNT_ID, true) : 0,
    machines: pointerCount > L.CLOUDSPACE_MACHINES ? readMachines(m, segment, pointers + 8 * L.CLOUDSPACE_MACHINES, depth + 1) : [],
    state: pointerCount > L.CLOUDSPACE_STATE ? m.text(segment, pointers + 8 * L.CLOUDSPACE_STATE, cloudSpaceState) : "",
  };
}

function readMachines(m: MessageReader, segment: number, pointer: number, depth: number): VMachine[] {
  const out: VMachine[] = [];
  if (!m.structList(segment, pointer, depth, L.VMACHINE_WORDS)) return out;
  const { segment: s, position, count, stepBytes, dataBytes, pointerCount } = m;
  for (let i = 0; i < count; i++) {
    out.push(readMachine(m, s, position + i * stepBytes, dataBytes, pointerCount, depth + 1));
  }
  return out;
}

function readMachine(
  m: MessageReader, segment: number, position: number, dataBytes: number, pointerCount: number, depth: number,
): VMachine {
  const view = m.view;
  const pointers = position + dataBytes;
  let id = 0;
  let vcpus = 0;
  let cpuMinutes = 0;
  let mem = 0;
  if (dataBytes >= L.VMACHINE_DATA_BYTES) {
    id = view.getInt32(position + L.VMACHINE_ID, true);
    vcpus = view.getInt8(position + L.VMACHINE_VCPUS);
    cpuMinutes = view.getFloat32(position + L.VMACHINE_CPU_MINUTES, true);
    mem = view.getFloat32(position + L.VMACHINE_MEM, true);
  } else {
    if (dataBytes >= L.VMACHINE_ID + 4) id = view.getInt32(position + L.VMACHINE_ID, true);
    if (dataBytes >= L.VMACHINE_VCPUS + 1) vcpus = view.getInt8(position + L.VMACHINE_VCPUS);
    if (dataBytes >= L.VMACHINE_CPU_MINUTES + 4) cpuMinutes = view.getFloat32(position + L.VMACHINE_CPU_MINUTES, true);
  }
  return {
    id,
    type: pointerCount > L.VMACHINE_TYPE ? m.text(segment, pointers + 8 * L.VMACHINE_TYPE, machineType) : "",
    vcpus,
    cpuMinutes,
    mem,
    networks: pointerCount > L.VMACHINE_NETWORKS ? readNics(m, segment, pointers + 8 * L.VMACHINE_NETWORKS, depth + 1) : [],
    disks: pointerCount > L.VMACHINE_DISKS ? readDisks(m, segment, pointers + 8 * L.VMACHINE_DISKS, depth + 1) : [],
    imageName: pointerCount > L.VMACHINE_IMAGE_NAME ? m.text(segment, pointers + 8 * L.VMACHINE_IMAGE_NAME, machineImageName) : "",
    status: pointerCount > L.VMACHINE_STATUS ? m.text(segment, pointers + 8 * L.VMACHINE_STATUS, machineStatus) : "",
  };
}

function readNics(m: MessageReader, segment: number, pointer: number, depth: number): Nic[] {
  const out: Nic[] = [];
  if (!m.structList(segment, pointer, depth, L.NIC_WORDS)) return out;
  const { segment: s, position, count, stepBytes, dataBytes, pointerCount } = m;
  const view = m.view;
  for (let i = 0; i < count; i++) {
    const at = position + i * stepBytes;
    let id = 0;
    let tx = 0;
    let rx = 0;
    if (dataBytes >= L.NIC_DATA_BYTES) {
      id = view.getInt32(at + L.NIC_ID, true);
      tx = view.getFloat32(at + L.NIC_TX, true);
      rx = view.getFloat32(at + L.NIC_RX, true);
    } else {
      if (dataBytes >= L.NIC_ID + 4) id = view.getInt32(at + L.NIC_ID, true);
      if (dataBytes >= L.NIC_TX + 4) tx = view.getFloat32(at + L.NIC_TX, true);
    }
    out.push({
      id,
      type: pointerCount > L.NIC_TYPE ? m.text(s, at + dataBytes + 8 * L.NIC_TYPE, nicType) : "",
      tx,
      rx,
    });
  }
  return out;
}

function readDisks(m: MessageReader, segment: number, pointer: number, depth: number): Disk[] {
  const out: Disk[] = [];
  if (!m.structList(segment, pointer, depth, L.DISK_WORDS)) return out;
  const { segment: s, position, count, stepBytes, dataBytes, pointerCount } = m;
  const view = m.view;
  for (let i = 0; i < count; i++) {
    const at = position + i * stepBytes;
    let id = 0;
    let size = 0;
    let iopsRead = 0;
    let iopsWrite = 0;
    let iopsReadMax = 0;
    let iopsWriteMax = 0;
    if (dataBytes >= L.DISK_DATA_BYTES) {
      id = view.getInt32(at + L.DISK_ID, true);
      size = view.getFloat32(at + L.DISK_SIZE, true);
      iopsRead = view.getFloat32(at + L.DISK_IOPS_READ, true);
      iopsWrite = view.getFloat32(at + L.DISK_IOPS_WRITE, true);
      iopsReadMax = view.getFloat32(at + L.DISK_IOPS_READ_MAX, true);
      iopsWriteMax = view.getFloat32(at + L.DISK_IOPS_WRITE_MAX, true);
    } else {
      if (dataBytes >= L.DISK_ID + 4) id = view.getInt32(at + L.DISK_ID, true);
      if (dataBytes >= L.DISK_SIZE + 4) size = view.getFloat32(at + L.DISK_SIZE, true);
      if (dataBytes >= L.DISK_IOPS_READ + 4) iopsRead = view.getFloat32(at + L.DISK_IOPS_READ, true);
      if (dataBytes >= L.DISK_IOPS_WRITE + 4) iopsWrite = view.getFloat32(at + L.DISK_IOPS_WRITE, true);
      if (dataBytes >= L.DISK_IOPS_READ_MAX + 4) iopsReadMax = view.getFloat32(at + L.DISK_IOPS_READ_MAX, true);
    }
    out.push({
      id,
      size,
      iopsRead,
      iopsWrite,
      iopsReadMax,
      iopsWriteMax,
      configuredIops:
        pointerCount > L.DISK_CONFIGURED_IOPS && m.struct(s, at + dataBytes + 8 * L.DISK_CONFIGURED_IOPS, depth + 2)
          ? readConfiguredIops(view, m.position, m.dataBytes)
          : null,
    });
  }
  return out;
}

function readConfiguredIops(view: DataView, at: number, dataBytes: number): ConfiguredIops {
  if (dataBytes >= L.CONFIGURED_IOPS_DATA_BYTES) {
    return {
      totalBytesSec: view.getFloat32(at, true),
      readBytesSec: view.getFloat32(at + 4, true),
      writeBytesSec: view.getFloat32(at + 8, true),
      totalIopsSec: view.getFloat32(at + 12, true),
      readIopsSec: view.getFloat32(at + 16, true),
      writeIopsSec: view.getFloat32(at + 20, true),
      totalBytesSecMax: view.getFloat32(at + 24, true),
      readBytesSecMax: view.getFloat32(at + 28, true),
      writeBytesSecMax: view.getFloat32(at + 32, true),
      totalIopsSecMax: view.getFloat32(at + 36, true),
      readIopsSecMax: view.getFloat32(at + 40, true),
      writeIopsSecMax: view.getFloat32(at + 44, true),
      sizeIopsSec: view.getFloat32(at + 48, true),
    };
  }
  const field = (i: number): number => (dataBytes >= 4 * i + 4 ? view.getFloat32(at + 4 * i, true) : 0);
  const out = {} as ConfiguredIops;
  L.CONFIGURED_IOPS_FIELDS.forEach((name, i) => {
    out[name] = field(i);
  });
  return out;
}
