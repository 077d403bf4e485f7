import { isImpossible } from "../store/impossibleValues.js";
import { GATEWAY_TYPE } from "../store/columnBatch.js";
import { ExactSum } from "./exactSum.js";

/**
 * What billing needs of one machine record in one hour: the machine's own fields, and the
 * totals of its disks and external NICs. Impossible values (SPEC 3.1: NaN, ±Infinity,
 * negative; NULL in a database) count as 0.
 */
export interface MachineFacts {
  cloudspaceId: number;
  machineId: number;
  type: string;
  status: string;
  imageName: string;
  memMb: number;
  vcpus: number;
  /** Σ size of the disks of (cloud space, machine id) in the hour, GB. */
  sizeGb: number;
  /** Σ configured IOPS limit of those disks (see {@link diskIopsLimit}). */
  iopsLimit: number;
  /** NICs of the external type of (cloud space, machine id), gateways' apart. */
  externalNics: number;
  /** Σ (tx + rx) of those NICs, as the files count them. */
  externalBytes: number;
}

/** The external NICs of a cloud space's gateways in one hour. */
export interface GatewayFacts {
  externalNics: number;
  externalBytes: number;
}

/** What billing needs of one account-hour: its cloud spaces' states, machine records and gateways. */
export interface AccountHourFacts {
  accountId: number;
  hourEpoch: number;
  /** Cloud space id → state (the greatest, should a cloud space appear twice). */
  cloudspaces: Map<number, string>;
  /** Every machine record but the gateways (every type: billing keeps its billed type). */
  machines: MachineFacts[];
  /** Cloud space id → its gateways' external NICs (cloud spaces with gateway NICs only). */
  gateways: Map<number, GatewayFacts>;
}

/** A measure as billing counts it: an impossible value (or NULL, its form in a database) is 0. */
const counted = (value: number | null): number => (value === null || isImpossible(value) ? 0 : value);

/**
 * The IOPS limit of one disk (SPEC 3, TU): its configured total IOPS when set (> 0), else
 * read + write IOPS when they are, else 0.
 */
export function diskIopsLimit(total: number | null, read: number | null, write: number | null): number {
  const t = counted(total);
  if (t > 0) return t;
  const rw = counted(read) + counted(write);
  return rw > 0 ? rw : 0;
}

interface DiskTotals {
  size: ExactSum;
  iops: ExactSum;
}
interface NicTotals {
  cloudspaceId: number;
  nics: number;
  bytes: ExactSum;
}

const key = (cloudspaceId: number, machineId: number): string => `${cloudspaceId}:${machineId}`;

/**
 * Builds the facts of one account-hour from its records, in any order: the visitor of the
 * files' bytes and a database's rows feed it alike, so both bill from one definition. Disks
 * and NICs belong to the machines of their (cloud space, machine id), as the warehouse keys
 * them; a NIC's `isGateway` says whether its machine is the cloud space's gateway.
 */
export class AccountHourFactsBuilder {
  private accountId = 0;
  private hourEpoch = 0;
  private cloudspaces = new Map<number, string>();
  private machines: Omit<MachineFacts, "sizeGb" | "iopsLimit" | "externalNics" | "externalBytes">[] = [];
  private disks = new Map<string, DiskTotals>();
  private nics = new Map<string, NicTotals>();
  private gatewayNics = new Map<string, NicTotals>();

  /** `externalNicType`: the NIC type whose traffic and public IPs are billed (units). */
  constructor(private readonly externalNicType: string) {}

  /** Starts an account-hour (forgetting the previous one). */
  begin(accountId: number, hourEpoch: number): void {
    this.accountId = accountId;
    this.hourEpoch = hourEpoch;
    this.cloudspaces = new Map();
    this.machines = [];
    this.disks = new Map();
    this.nics = new Map();
    this.gatewayNics = new Map();
  }

  cloudSpace(cloudspaceId: number, state: string): void {
    const seen = this.cloudspaces.get(cloudspaceId);
    if (seen === undefined || state > seen) this.cloudspaces.set(cloudspaceId, state);
  }

  /** A machine record; gateways (type `routeros`) are not machines: their NICs count for the cloud space. */
  machine(cloudspaceId: number, machineId: number, type: string, status: string, imageName: string, memMb: number | null, vcpus: number | null): void {
    if (type === GATEWAY_TYPE) return;
    this.machines.push({ cloudspaceId, machineId, type, status, imageName, memMb: counted(memMb), vcpus: counted(vcpus) });
  }

  disk(cloudspaceId: number, machineId: number, sizeGb: number | null, totalIops: number | null, readIops: number | null, writeIops: number | null): void {
    const k = key(cloudspaceId, machineId);
    let totals = this.disks.get(k);
    if (totals === undefined) this.disks.set(k, (totals = { size: new ExactSum(), iops: new ExactSum() }));
    totals.size.add(counted(sizeGb));
    totals.iops.add(diskIopsLimit(totalIops, readIops, writeIops));
  }

  nic(cloudspaceId: number, machineId: number, isGateway: boolean, type: string, tx: number | null, rx: number | null): void {
    const k = key(cloudspaceId, machineId);
    const map = isGateway ? this.gatewayNics : this.nics;
    let totals = map.get(k);
    if (totals === undefined) map.set(k, (totals = { cloudspaceId, nics: 0, bytes: new ExactSum() }));
    if (type !== this.externalNicType) return;
    totals.nics++;
    totals.bytes.add(counted(tx) + counted(rx));
  }

  /** The account-hour's facts. */
  finish(): AccountHourFacts {
    const machines = this.machines.map((m): MachineFacts => {
      const k = key(m.cloudspaceId, m.machineId);
      const d = this.disks.get(k);
      const n = this.nics.get(k);
      return {
        ...m,
        sizeGb: d?.size.value() ?? 0, iopsLimit: d?.iops.value() ?? 0,
        externalNics: n?.nics ?? 0, externalBytes: n?.bytes.value() ?? 0,
      };
    });
    // a cloud space's gateways: Σ over its gateways of each one's totals
    const sums = new Map<number, { externalNics: number; externalBytes: ExactSum }>();
    for (const g of this.gatewayNics.values()) {
      let s = sums.get(g.cloudspaceId);
      if (s === undefined) sums.set(g.cloudspaceId, (s = { externalNics: 0, externalBytes: new ExactSum() }));
      s.externalNics += g.nics;
      s.externalBytes.add(g.bytes.value());
    }
    const gateways = new Map<number, GatewayFacts>();
    for (const [id, s] of sums) gateways.set(id, { externalNics: s.externalNics, externalBytes: s.externalBytes.value() });
    return { accountId: this.accountId, hourEpoch: this.hourEpoch, cloudspaces: this.cloudspaces, machines, gateways };
  }
}
