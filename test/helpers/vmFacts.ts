import type { AccountHourFacts } from "../../src/load/machineFacts.js";
import type { VmFacts } from "../../src/load/vmFacts.js";

/** A VM of an account-hour's facts: its cloud space, its id and its facts. */
export type FactsVm = { cloudspaceId: number; id: number } & VmFacts;

/** A running Linux VM: 4,096 MB, 2 vCPUs, a 100 GB disk of 800 IOPS, one external NIC without traffic; `more` changes any fact. */
export const linuxVm = (cloudspaceId: number, id: number, more: Partial<VmFacts> = {}): FactsVm => ({
  cloudspaceId,
  id,
  status: "RUNNING",
  imageName: "ubuntu-24.04",
  memMb: 4096,
  vcpus: 2,
  sizeGb: 100,
  iopsLimit: 800,
  externalNics: 1,
  externalBytes: 0,
  ...more,
});

/**
 * The facts of an account-hour as the billing engine takes them: its cloud spaces (id, state),
 * its VMs in the order given, and the gateways' external NICs and bytes by cloud space.
 */
export function vmAccountHour(
  accountId: number,
  hourEpoch: number,
  vms: readonly FactsVm[],
  cloudspaces: readonly (readonly [number, string])[] = [[100, "DEPLOYED"]],
  gateways: ReadonlyMap<number, { externalNics: number; externalBytes: number }> = new Map(),
): AccountHourFacts {
  const column = <K extends keyof VmFacts>(k: K) => vms.map((v) => v[k]);
  return {
    accountId,
    hourEpoch,
    cloudspaceIds: cloudspaces.map(([id]) => id),
    cloudspaceStates: cloudspaces.map(([, state]) => state),
    emptyCloudspaceRows: 0,
    machines: vms.length,
    cloudspaceId: vms.map((v) => v.cloudspaceId),
    machineId: vms.map((v) => v.id),
    type: vms.map(() => "vm"),
    status: column("status"),
    imageName: column("imageName"),
    memMb: column("memMb"),
    vcpus: column("vcpus"),
    sizeGb: column("sizeGb"),
    iopsLimit: column("iopsLimit"),
    externalNics: column("externalNics"),
    externalBytes: column("externalBytes"),
    gateways,
  };
}
