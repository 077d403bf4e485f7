import { CONFIGURED_IOPS_FIELDS } from "../capnp/layout.js";
import type { RecordVisitor } from "../capnp/visitRecords.js";
import {
  GATEWAY_TYPE,
  putI64,
  putString,
  TABLE_COLUMNS,
  type ColumnBatch,
  type ColumnData,
  type ColumnSelection,
  type StringColumn,
} from "./columnBatch.js";
import { isImpossible, MEASURED_FIELDS, type ImpossiblePart, type ImpossibleValue } from "./impossibleValues.js";
import type { DataTable } from "./dataTables.js";
import {
  AccountHourFactsBuilder,
  FACTS_EXTERNAL_NIC_TYPE,
  FactsVisitor,
  type AccountHourFacts,
} from "./machineFacts.js";
import { TableBuilder } from "./TableBuilder.js";
import { VM_FACT_NAMES, VM_FACTS } from "./vmFacts.js";

/** Marks row `row` of measure column `column` NULL (an impossible value); a column not kept is skipped. */
function setNull(column: ColumnData | undefined, row: number): void {
  if (column === undefined) return;
  const c = column as { nulls?: number[] };
  (c.nulls ??= []).push(row);
}

/** Writes an integer (|value| < 2^53) as a little-endian int64 at pair `row` (the setters skip a column not kept). */
function setI64(column: ColumnData | undefined, row: number, value: number): void {
  if (column !== undefined) putI64((column as { values: Int32Array }).values, row, value);
}

const setI32 = (column: ColumnData | undefined, row: number, value: number): void => {
  if (column !== undefined) (column as { values: Int32Array }).values[row] = value;
};
const setF64 = (column: ColumnData | undefined, row: number, value: number): void => {
  if (column !== undefined) (column as { values: Float64Array }).values[row] = value;
};
const setBool = (column: ColumnData | undefined, row: number, value: boolean): void => {
  if (column !== undefined) (column as { values: Uint8Array }).values[row] = value ? 1 : 0;
};

/** Writes string column `i` of row `r` as DuckDB's 16-byte record when short enough, else lists it to assign apart. */
function setStr(t: TableBuilder, i: number, row: number, value: string): void {
  const words = t.words[i];
  if (words !== undefined) putString(words, t.columns[i] as StringColumn, row, value);
}

/** The index in TABLE_COLUMNS[table] of each measured field of `part`, in MEASURED_FIELDS order. */
const measureColumns = (table: DataTable, part: ImpossiblePart): number[] =>
  MEASURED_FIELDS[part].map((f) => TABLE_COLUMNS[table].findIndex((c) => c.name === f.column));
const MACHINE_MEASURES = measureColumns("machines", "machine");
const GATEWAY_MEASURES = measureColumns("gateways", "machine");
const DISK_MEASURES = measureColumns("disks", "disk");
const NIC_MEASURES = measureColumns("nics", "nic");
const NO_LIMITS = new Float64Array(CONFIGURED_IOPS_FIELDS.length);

/**
 * Stages account-hours column by column for the given tables, row by row as a decoder
 * visits them (see `visitRecords.ts`) or from decoded records: gateways (`type =
 * "routeros"`) go to `gateways`, every other machine to `machines`; disks and NICs keep
 * their position in the owner's list. The column layout is `TABLE_COLUMNS`, less the
 * columns `selection` leaves out. A measure holding an impossible value (docs/warehouse.md: NaN,
 * ±Infinity, negative) is staged as NULL and listed in `impossibleValues`, with its file,
 * whatever tables and columns are staged.
 */
export class ColumnBuilder implements RecordVisitor {
  private readonly accountHours: TableBuilder | undefined;
  private readonly cloudspaces: TableBuilder | undefined;
  private readonly machines: TableBuilder | undefined;
  private readonly gateways: TableBuilder | undefined;
  private readonly disks: TableBuilder | undefined;
  private readonly nics: TableBuilder | undefined;
  private readonly machineFacts: TableBuilder | undefined;
  private readonly gatewayFacts: TableBuilder | undefined;
  /** The billing facts of the hour, built as the records are visited (when a facts table is staged). */
  private readonly facts: FactsVisitor | undefined;
  private accountId = 0;
  private hourEpoch = 0;
  private marks: number[] = [];
  /** The files of the account-hour begun last; with several (CloudSpace files), the one visited is the `ordinal`-th. */
  private files: readonly string[] = [];
  private ordinal = 0;
  private readonly impossible: ImpossibleValue[] = [];
  private impossibleMark = 0;
  /** The first impossible value of the machine being visited (its NICs and disks come before it). */
  private ownerFrom = 0;

  /** A visitor that sees every record too, before this builder (a load's tap: billing's facts). */
  private readonly also: RecordVisitor | undefined;

  /**
   * `inputBytes`: the size of the files to stage, to size the arrays (they grow as needed).
   * `also`: a visitor given every record first (called here rather than through a second
   * visitor in turn: one call less per record on the decoder's hot path).
   */
  constructor(tables: ReadonlySet<DataTable>, inputBytes = 0, selection?: ColumnSelection, also?: RecordVisitor) {
    this.also = also;
    const want = (t: DataTable) => (tables.has(t) ? new TableBuilder(t, inputBytes, selection) : undefined);
    this.accountHours = want("account_hours");
    this.cloudspaces = want("cloudspaces");
    this.machines = want("machines");
    this.gateways = want("gateways");
    this.disks = want("disks");
    this.nics = want("nics");
    this.machineFacts = want("machine_facts");
    this.gatewayFacts = want("gateway_facts");
    if (this.machineFacts !== undefined || this.gatewayFacts !== undefined)
      this.facts = new FactsVisitor(new AccountHourFactsBuilder(FACTS_EXTERNAL_NIC_TYPE));
  }

  private tables(): (TableBuilder | undefined)[] {
    return [
      this.accountHours,
      this.cloudspaces,
      this.machines,
      this.gateways,
      this.disks,
      this.nics,
      this.machineFacts,
      this.gatewayFacts,
    ];
  }

  /**
   * Starts an account-hour (ids from the path): the rows visited next belong to it. `files`:
   * the display names of its files, in the order they are visited, to name the file of an
   * impossible value.
   */
  beginHour(accountId: number, hourEpoch: number, files: readonly string[] = []): void {
    this.accountId = accountId;
    this.hourEpoch = hourEpoch;
    this.marks = this.tables().map((t) => t?.rows ?? 0);
    this.files = files;
    this.ordinal = 0;
    this.impossibleMark = this.ownerFrom = this.impossible.length;
    this.facts?.builder.begin(accountId, hourEpoch);
  }

  /** Drops the rows of the account-hour begun last (it could not be decoded). */
  abandonHour(): void {
    this.tables().forEach((t, i) => t?.truncate(this.marks[i]!));
    this.impossible.length = this.ownerFrom = this.impossibleMark;
  }

  /** The impossible values met so far (of the hours not abandoned), in visiting order. */
  get impossibleValues(): readonly ImpossibleValue[] {
    return this.impossible;
  }

  private record(
    part: ImpossiblePart,
    field: number,
    value: number,
    cloudspaceId: number,
    machineId: number,
    machineType: string,
    index: number | null,
    partId: number | null,
    nicType: string | null,
  ): void {
    const { field: name, column } = MEASURED_FIELDS[part][field]!;
    const file = this.files.length <= 1 ? (this.files[0] ?? "") : (this.files[this.ordinal] ?? this.files[0]!);
    this.impossible.push({
      file,
      accountId: this.accountId,
      hourEpoch: this.hourEpoch,
      cloudspaceId,
      machineId,
      machineType,
      part,
      index,
      partId,
      nicType,
      field: name,
      column,
      value: String(value),
    });
  }

  /** Ends the account-hour with its `account_hours` row, and its facts rows. */
  endHour(rootAccountId: number | null, cloudspaceCount: number): void {
    if (this.facts !== undefined) this.addFacts(this.facts.builder.finish());
    const t = this.accountHours;
    if (t === undefined) return;
    const r = t.next();
    const c = t.columns;
    setI64(c[0], r, this.accountId);
    setI64(c[1], r, this.hourEpoch);
    const root = c[2] as Extract<ColumnData, { kind: "i64null" }> | undefined;
    if (root !== undefined) root.valid[r] = rootAccountId === null ? 0 : 1;
    setI64(root, r, rootAccountId ?? 0);
    setI32(c[3], r, cloudspaceCount);
  }

  /**
   * Stages an account-hour's billing facts (as the facts builder makes them) as rows of the
   * facts tables: called by `endHour` with the facts of the records visited, or with facts
   * made elsewhere (the upgrade of a warehouse without them).
   */
  addFacts(f: AccountHourFacts): void {
    this.accountId = f.accountId;
    this.hourEpoch = f.hourEpoch;
    const m = this.machineFacts;
    if (m !== undefined) {
      for (let i = 0; i < f.machines; i++) {
        const r = m.next();
        const c = m.columns;
        this.key(c, r, f.cloudspaceId[i]!);
        setI32(c[3], r, f.machineId[i]!);
        setStr(m, 4, r, f.type[i]!);
        for (let k = 0; k < VM_FACT_NAMES.length; k++) {
          const name = VM_FACT_NAMES[k]!;
          const kind = VM_FACTS[name].kind;
          if (kind === "str") setStr(m, 5 + k, r, f[name][i] as string);
          else if (kind === "f64") setF64(c[5 + k], r, f[name][i] as number);
          else setI32(c[5 + k], r, f[name][i] as number);
        }
      }
    }
    const g = this.gatewayFacts;
    if (g === undefined) return;
    for (const [cloudspaceId, { externalNics, externalBytes }] of f.gateways) {
      const r = g.next();
      const c = g.columns;
      this.key(c, r, cloudspaceId);
      setI32(c[3], r, externalNics);
      setF64(c[4], r, externalBytes);
    }
  }

  private key(c: (ColumnData | undefined)[], r: number, cloudSpaceId: number): void {
    setI64(c[0], r, this.accountId);
    setI64(c[1], r, this.hourEpoch);
    setI32(c[2], r, cloudSpaceId);
  }

  cloudSpace(cloudSpaceId: number, accountId: number, state: string): void {
    this.also?.cloudSpace(cloudSpaceId, accountId, state);
    this.facts?.cloudSpace(cloudSpaceId, accountId, state);
    this.ordinal++; // the next cloud space is the next file's, when the hour has several
    const t = this.cloudspaces;
    if (t === undefined) return;
    const r = t.next();
    const c = t.columns;
    this.key(c, r, cloudSpaceId);
    setI32(c[3], r, accountId);
    setStr(t, 4, r, state);
  }

  machine(
    cloudSpaceId: number,
    id: number,
    type: string,
    vcpus: number,
    measures: Float64Array,
    imageName: string,
    status: string,
  ): void {
    this.also?.machine(cloudSpaceId, id, type, vcpus, measures, imageName, status);
    this.facts?.machine(cloudSpaceId, id, type, vcpus, measures, imageName, status);
    const cpuMinutes = measures[0]!;
    const mem = measures[1]!;
    let r = -1;
    let c: (ColumnData | undefined)[] | undefined;
    const gateway = type === GATEWAY_TYPE;
    const t = gateway ? this.gateways : this.machines;
    if (t !== undefined) {
      r = t.next();
      c = t.columns;
      this.key(c, r, cloudSpaceId);
      setI32(c[3], r, id);
      if (gateway) {
        setI32(c[4], r, vcpus);
        setF64(c[5], r, cpuMinutes);
        setF64(c[6], r, mem);
        setStr(t, 7, r, imageName);
        setStr(t, 8, r, status);
      } else {
        setStr(t, 4, r, type);
        setI32(c[5], r, vcpus);
        setF64(c[6], r, cpuMinutes);
        setF64(c[7], r, mem);
        setStr(t, 8, r, imageName);
        setStr(t, 9, r, status);
      }
    }
    // the checks stay here, the rare rest out of line: this is the decoder's hot path
    if (this.ownerFrom < this.impossible.length || vcpus < 0 || isImpossible(cpuMinutes) || isImpossible(mem)) {
      this.impossibleMachine(
        cloudSpaceId,
        id,
        type,
        [vcpus, cpuMinutes, mem],
        c,
        r,
        gateway ? GATEWAY_MEASURES : MACHINE_MEASURES,
      );
    }
  }

  /** Names the machine's type in its NICs' and disks' impossible values, and records and nulls its own. */
  private impossibleMachine(
    cloudSpaceId: number,
    id: number,
    type: string,
    values: number[],
    c: (ColumnData | undefined)[] | undefined,
    r: number,
    measures: readonly number[],
  ): void {
    for (let k = this.ownerFrom; k < this.impossible.length; k++) this.impossible[k]!.machineType = type;
    values.forEach((v, f) => {
      if (isImpossible(v)) this.record("machine", f, v, cloudSpaceId, id, type, null, null, null);
    });
    this.ownerFrom = this.impossible.length;
    if (c !== undefined) nullImpossible(c, r, measures, values);
  }

  disk(
    cloudSpaceId: number,
    machineId: number,
    index: number,
    id: number,
    measures: Float64Array,
    configuredIops: Float64Array | null,
  ): void {
    this.also?.disk(cloudSpaceId, machineId, index, id, measures, configuredIops);
    this.facts?.disk(cloudSpaceId, machineId, index, id, measures, configuredIops);
    const size = measures[0]!;
    const iopsRead = measures[1]!;
    const iopsWrite = measures[2]!;
    const iopsReadMax = measures[3]!;
    const iopsWriteMax = measures[4]!;
    let r = -1;
    const t = this.disks;
    if (t !== undefined) {
      r = t.next();
      const c = t.columns;
      this.key(c, r, cloudSpaceId);
      setI32(c[3], r, machineId);
      setI32(c[4], r, index);
      setI32(c[5], r, id);
      setF64(c[6], r, size);
      setF64(c[7], r, iopsRead);
      setF64(c[8], r, iopsWrite);
      setF64(c[9], r, iopsReadMax);
      setF64(c[10], r, iopsWriteMax);
      setBool(c[11], r, configuredIops !== null);
      for (let f = 0; f < 13; f++) setF64(c[12 + f], r, configuredIops === null ? 0 : configuredIops[f]!);
    }
    if (
      isImpossible(size) ||
      isImpossible(iopsRead) ||
      isImpossible(iopsWrite) ||
      isImpossible(iopsReadMax) ||
      isImpossible(iopsWriteMax) ||
      (configuredIops !== null && anyImpossible(configuredIops))
    ) {
      const values = [size, iopsRead, iopsWrite, iopsReadMax, iopsWriteMax, ...Array.from(configuredIops ?? NO_LIMITS)];
      // the machine's type is filled in when the machine is visited, right after its disks
      values.forEach((v, f) => {
        if (isImpossible(v)) this.record("disk", f, v, cloudSpaceId, machineId, "", index, id, null);
      });
      if (t !== undefined) nullImpossible(t.columns, r, DISK_MEASURES, values);
    }
  }

  nic(
    cloudSpaceId: number,
    machineId: number,
    machineType: string,
    index: number,
    id: number,
    type: string,
    bytes: Float64Array,
  ): void {
    this.also?.nic(cloudSpaceId, machineId, machineType, index, id, type, bytes);
    this.facts?.nic(cloudSpaceId, machineId, machineType, index, id, type, bytes);
    const tx = bytes[0]!;
    const rx = bytes[1]!;
    let r = -1;
    const t = this.nics;
    if (t !== undefined) {
      r = t.next();
      const c = t.columns;
      this.key(c, r, cloudSpaceId);
      setI32(c[3], r, machineId);
      setBool(c[4], r, machineType === GATEWAY_TYPE);
      setI32(c[5], r, index);
      setI32(c[6], r, id);
      setStr(t, 7, r, type);
      setF64(c[8], r, tx);
      setF64(c[9], r, rx);
    }
    if (isImpossible(tx) || isImpossible(rx)) {
      [tx, rx].forEach((v, f) => {
        if (isImpossible(v)) this.record("nic", f, v, cloudSpaceId, machineId, machineType, index, id, type);
      });
      if (t !== undefined) nullImpossible(t.columns, r, NIC_MEASURES, [tx, rx]);
    }
  }

  /** The staged rows of every table asked for. */
  finish(): ColumnBatch {
    const batch: ColumnBatch = {};
    const names: DataTable[] = [
      "account_hours",
      "cloudspaces",
      "machines",
      "gateways",
      "disks",
      "nics",
      "machine_facts",
      "gateway_facts",
    ];
    this.tables().forEach((t, i) => {
      if (t !== undefined) batch[names[i]!] = t.finish();
    });
    return batch;
  }
}

/** True when one of `values` is impossible. */
function anyImpossible(values: ArrayLike<number>): boolean {
  for (let f = 0; f < values.length; f++) if (isImpossible(values[f]!)) return true;
  return false;
}

/** Marks NULL, in row `r`, the measure columns (indexes `measures`) whose value is impossible. */
function nullImpossible(
  c: (ColumnData | undefined)[],
  r: number,
  measures: readonly number[],
  values: readonly number[],
): void {
  values.forEach((v, f) => {
    if (isImpossible(v)) setNull(c[measures[f]!], r);
  });
}
