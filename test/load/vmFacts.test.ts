import { describe, expect, it } from "vitest";
import type { VmHour } from "../../src/billing/unitCatalog.js";
import {
  CONFIGURATION_FACTS,
  DISK_FIELDS_READ,
  overDisks,
  PER_HOUR_FACTS,
  type VmFactDef,
} from "../../src/load/vmFacts.js";

// What the one list of per-VM facts cannot carry does not type-check (`tsc --noEmit`, which `npm test`
// runs over test/ too, fails on an `@ts-expect-error` that no longer errs): each line below is a
// fact a maintainer might write that would bill wrong figures on some road if it compiled.
export const refused: VmFactDef[] = [
  // @ts-expect-error a text cannot be summed over disks
  { column: "disk_names", kind: "str", from: overDisks(["size"], (disk) => disk.size) },
  // @ts-expect-error a number read from a text field of the machine record
  { column: "status_number", kind: "f64", from: { machine: "status" } },
  // @ts-expect-error a field the machine record does not have
  { column: "gpus", kind: "i32", from: { machine: "gpus" } },
  // @ts-expect-error a disk's amount reading a field it does not name (the rows' road would not read its column)
  { column: "reads", kind: "f64", from: overDisks(["size"], (disk) => disk.iopsRead) },
  // @ts-expect-error a text summed per hour
  { column: "image_each_hour", kind: "str", from: { machine: "imageName" }, perHour: true },
];

/** A per-VM formula reading the external bytes (summed per hour: the grouped roads have no VM's own). */
// @ts-expect-error a VmHour has no externalBytes
export const readsBytes = (vm: VmHour): number => vm.externalBytes;

describe("VM_FACTS, the one list of per-VM facts", () => {
  it("reads of the disks table only the fields its facts name: size and the configured IOPS limits", () => {
    expect(DISK_FIELDS_READ).toEqual(["size", "totalIopsSec", "readIopsSec", "writeIopsSec"]);
  });

  it("groups VM-hours by every fact but the external bytes, which it sums per hour", () => {
    expect(PER_HOUR_FACTS).toEqual(["externalBytes"]);
    expect(CONFIGURATION_FACTS).toEqual([
      "status",
      "imageName",
      "memMb",
      "vcpus",
      "sizeGb",
      "iopsLimit",
      "externalNics",
    ]);
  });
});
