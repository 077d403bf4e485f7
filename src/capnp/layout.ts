/**
 * Where each field of schema/resourcemonitoring.capnp lives: byte offsets in a struct's data
 * section and indexes in its pointer section, as `capnp compile -ocapnp` lays them out (the
 * comments quote its bits/ptr positions). The decoder reads every field through these names,
 * so a schema change is made here only. Sizes are the schema's; files may carry other sizes
 * (the older schema, newer ones), which the decoder takes from each pointer.
 */

// struct Account  # 8 bytes, 1 ptrs
/** accountId @0 :UInt32  # bits[0, 32) */
export const ACCOUNT_ACCOUNT_ID = 0;
/** cloudspaces @1 :List(CloudSpace)  # ptr[0] */
export const ACCOUNT_CLOUDSPACES = 0;

// struct CloudSpace  # 8 bytes, 2 ptrs
/** cloudSpaceId @0 :Int32  # bits[0, 32) */
export const CLOUDSPACE_CLOUD_SPACE_ID = 0;
/** accountId @1 :Int32  # bits[32, 64) */
export const CLOUDSPACE_ACCOUNT_ID = 4;
/** machines @2 :List(VMachine)  # ptr[0] */
export const CLOUDSPACE_MACHINES = 0;
/** state @3 :Text  # ptr[1] */
export const CLOUDSPACE_STATE = 1;
/** The struct's size in the schema, words (1 data + 2 pointers). */
export const CLOUDSPACE_WORDS = 3;

// struct VMachine  # 16 bytes, 5 ptrs
/** id @0 :Int32  # bits[0, 32) */
export const VMACHINE_ID = 0;
/** vcpus @2 :Int8  # bits[32, 40) */
export const VMACHINE_VCPUS = 4;
/** cpuMinutes @3 :Float32  # bits[64, 96) */
export const VMACHINE_CPU_MINUTES = 8;
/** mem @4 :Float32  # bits[96, 128) */
export const VMACHINE_MEM = 12;
/** The data section's size in the schema, bytes. */
export const VMACHINE_DATA_BYTES = 16;
/** type @1 :Text  # ptr[0] */
export const VMACHINE_TYPE = 0;
/** networks @5 :List(Nic)  # ptr[1] */
export const VMACHINE_NETWORKS = 1;
/** disks @6 :List(Disk)  # ptr[2] */
export const VMACHINE_DISKS = 2;
/** imageName @7 :Text  # ptr[3] */
export const VMACHINE_IMAGE_NAME = 3;
/** status @8 :Text  # ptr[4] */
export const VMACHINE_STATUS = 4;
/** The struct's size in the schema, words (2 data + 5 pointers). */
export const VMACHINE_WORDS = 7;

// struct Nic  # 16 bytes, 1 ptrs
/** id @0 :Int32  # bits[0, 32) */
export const NIC_ID = 0;
/** tx @2 :Float32  # bits[32, 64) */
export const NIC_TX = 4;
/** rx @3 :Float32  # bits[64, 96) */
export const NIC_RX = 8;
/** The data section's size in the schema, bytes. */
export const NIC_DATA_BYTES = 12;
/** type @1 :Text  # ptr[0] */
export const NIC_TYPE = 0;
/** The struct's size in the schema, words (2 data + 1 pointer). */
export const NIC_WORDS = 3;

// struct Disk  # 24 bytes, 1 ptrs (the older schema: no pointer)
/** id @0 :Int32  # bits[0, 32) */
export const DISK_ID = 0;
/** size @1 :Float32  # bits[32, 64) */
export const DISK_SIZE = 4;
/** iopsRead @2 :Float32  # bits[64, 96) */
export const DISK_IOPS_READ = 8;
/** iopsWrite @3 :Float32  # bits[96, 128) */
export const DISK_IOPS_WRITE = 12;
/** iopsReadMax @4 :Float32  # bits[128, 160) */
export const DISK_IOPS_READ_MAX = 16;
/** iopsWriteMax @5 :Float32  # bits[160, 192) */
export const DISK_IOPS_WRITE_MAX = 20;
/** The data section's size in the schema, bytes. */
export const DISK_DATA_BYTES = 24;
/** configuredIops @6 :ConfiguredIopsStruct  # ptr[0] */
export const DISK_CONFIGURED_IOPS = 0;
/** The struct's size in the schema, words (3 data + 1 pointer). */
export const DISK_WORDS = 4;

// struct ConfiguredIopsStruct  # 56 bytes, 0 ptrs: thirteen Float32 at bits[32·i, 32·i + 32)
/** The fields in field-number order; field `i` is at byte offset 4·i. */
export const CONFIGURED_IOPS_FIELDS = [
  "totalBytesSec",
  "readBytesSec",
  "writeBytesSec",
  "totalIopsSec",
  "readIopsSec",
  "writeIopsSec",
  "totalBytesSecMax",
  "readBytesSecMax",
  "writeBytesSecMax",
  "totalIopsSecMax",
  "readIopsSecMax",
  "writeIopsSecMax",
  "sizeIopsSec",
] as const;
/** The data section's size in the schema, bytes (52 used, padded to 56). */
export const CONFIGURED_IOPS_DATA_BYTES = 52;
