import { CONFIGURED_IOPS_FIELDS } from "../capnp/layout.js";
import type { DecodedAccountHour } from "../capnp/records.js";
import type { RecordVisitor } from "../capnp/visitRecords.js";
import {
  GATEWAY_TYPE, inlineRecord, keptColumns, TABLE_COLUMNS,
  type ColumnBatch, type ColumnData, type ColumnSelection, type ColumnSpec, type TableColumns,
} from "./columnBatch.js";
import type { DataTable } from "./schema.js";

const TWO_32 = 4294967296;
/** Rows a table starts with, at least; it doubles when full. */
const MIN_ROWS = 64;
/**
 * Input bytes per row of each table in typical files (a VM with two disks and one or two
 * NICs takes about 340 bytes), to size the arrays once for a group instead of growing them.
 */
const BYTES_PER_ROW: Record<DataTable, number> = {
  account_hours: 16384, cloudspaces: 8192, machines: 320, gateways: 8192, disks: 160, nics: 240,
};

/**
 * The growing columns of one table; `rows` are written, the arrays may hold more. Columns
 * are indexed as in TABLE_COLUMNS; a column not kept is `undefined`, and writing it is a
 * no-op.
 */
class TableBuilder {
  rows = 0;
  capacity = 0;
  columns: (ColumnData | undefined)[] = [];
  /** For each kept string column, its records as int32 words (four per row). */
  words: (Int32Array | undefined)[] = [];
  private readonly specs: readonly ColumnSpec[];
  private readonly kept: readonly number[];

  constructor(table: DataTable, inputBytes: number, selection: ColumnSelection | undefined) {
    this.specs = TABLE_COLUMNS[table];
    this.kept = keptColumns(table, selection);
    this.grow(Math.max(MIN_ROWS, Math.ceil(inputBytes / BYTES_PER_ROW[table])));
  }

  /** The next row's index, growing the arrays when full. */
  next(): number {
    if (this.rows === this.capacity) this.grow(this.capacity * 2);
    return this.rows++;
  }

  private grow(capacity: number): void {
    const old = this.columns;
    this.columns = this.specs.map(({ kind }, i): ColumnData | undefined => {
      if (!this.kept.includes(i)) return undefined;
      const was = old[i];
      switch (kind) {
        case "i64": return { kind, values: copied(new Int32Array(capacity * 2), was) };
        case "i64null": return { kind, values: copied(new Int32Array(capacity * 2), was), valid: copiedValid(new Uint8Array(capacity), was) };
        case "i32": return { kind, values: copied(new Int32Array(capacity), was) };
        case "f64": return { kind, values: copied(new Float64Array(capacity), was) };
        case "bool": return { kind, values: copied(new Uint8Array(capacity), was) };
        case "str": {
          const records = new Uint8Array(capacity * 16);
          if (was?.kind === "str") {
            records.set(was.records);
            return { kind, records, longRows: was.longRows, longValues: was.longValues };
          }
          return { kind, records, longRows: [], longValues: [] };
        }
      }
    });
    this.words = this.columns.map((c) => (c?.kind === "str" ? new Int32Array(c.records.buffer, c.records.byteOffset, c.records.length >> 2) : undefined));
    this.capacity = capacity;
  }

  /** Forgets the rows from `rows` on (an account-hour that failed to decode). */
  truncate(rows: number): void {
    this.rows = rows;
    for (const c of this.columns) {
      if (c?.kind !== "str") continue;
      let keep = c.longRows.length;
      while (keep > 0 && c.longRows[keep - 1]! >= rows) keep--;
      c.longRows.length = keep;
      c.longValues.length = keep;
    }
  }

  /** The written rows of the kept columns, as views of the arrays. */
  finish(): TableColumns {
    const rows = this.rows;
    return {
      rows,
      columns: this.kept.map((i): ColumnData => {
        const c = this.columns[i]!;
        switch (c.kind) {
          case "i64": return { kind: c.kind, values: c.values.subarray(0, rows * 2) };
          case "i64null": return { kind: c.kind, values: c.values.subarray(0, rows * 2), valid: c.valid.subarray(0, rows) };
          case "i32": return { kind: c.kind, values: c.values.subarray(0, rows) };
          case "f64": return { kind: c.kind, values: c.values.subarray(0, rows) };
          case "bool": return { kind: c.kind, values: c.values.subarray(0, rows) };
          case "str": return { kind: c.kind, records: c.records.subarray(0, rows * 16), longRows: c.longRows, longValues: c.longValues };
        }
      }),
    };
  }
}

function copied<T extends Int32Array | Float64Array | Uint8Array>(into: T, was: ColumnData | undefined): T {
  if (was !== undefined && was.kind !== "str") (into as Int32Array).set(was.values as Int32Array);
  return into;
}

function copiedValid(into: Uint8Array, was: ColumnData | undefined): Uint8Array {
  if (was?.kind === "i64null") into.set(was.valid);
  return into;
}

/** Writes an integer (|value| < 2^53) as a little-endian int64 at pair `row` (the setters skip a column not kept). */
function setI64(column: ColumnData | undefined, row: number, value: number): void {
  if (column === undefined) return;
  const values = (column as { values: Int32Array }).values;
  const high = Math.floor(value / TWO_32);
  values[2 * row] = value - high * TWO_32;
  values[2 * row + 1] = high;
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
  if (words === undefined) return;
  const at = row * 4;
  const record = inlineRecord(value);
  if (record !== null) {
    words[at] = record[0]!;
    words[at + 1] = record[1]!;
    words[at + 2] = record[2]!;
    words[at + 3] = record[3]!;
  } else {
    words.fill(0, at, at + 4);
    const c = t.columns[i] as Extract<ColumnData, { kind: "str" }>;
    c.longRows.push(row);
    c.longValues.push(value);
  }
}

/**
 * Stages account-hours column by column for the given tables, row by row as a decoder
 * visits them (see `visitRecords.ts`) or from decoded records: gateways (`type =
 * "routeros"`) go to `gateways`, every other machine to `machines`; disks and NICs keep
 * their position in the owner's list. The column layout is `TABLE_COLUMNS`, less the
 * columns `selection` leaves out.
 */
export class ColumnBuilder implements RecordVisitor {
  private readonly accountHours: TableBuilder | undefined;
  private readonly cloudspaces: TableBuilder | undefined;
  private readonly machines: TableBuilder | undefined;
  private readonly gateways: TableBuilder | undefined;
  private readonly disks: TableBuilder | undefined;
  private readonly nics: TableBuilder | undefined;
  private accountId = 0;
  private hourEpoch = 0;
  private marks: number[] = [];

  /** `inputBytes`: the size of the files to stage, to size the arrays (they grow as needed). */
  constructor(tables: ReadonlySet<DataTable>, inputBytes = 0, selection?: ColumnSelection) {
    const want = (t: DataTable) => (tables.has(t) ? new TableBuilder(t, inputBytes, selection) : undefined);
    this.accountHours = want("account_hours");
    this.cloudspaces = want("cloudspaces");
    this.machines = want("machines");
    this.gateways = want("gateways");
    this.disks = want("disks");
    this.nics = want("nics");
  }

  private tables(): (TableBuilder | undefined)[] {
    return [this.accountHours, this.cloudspaces, this.machines, this.gateways, this.disks, this.nics];
  }

  /** Starts an account-hour (ids from the path): the rows visited next belong to it. */
  beginHour(accountId: number, hourEpoch: number): void {
    this.accountId = accountId;
    this.hourEpoch = hourEpoch;
    this.marks = this.tables().map((t) => t?.rows ?? 0);
  }

  /** Drops the rows of the account-hour begun last (it could not be decoded). */
  abandonHour(): void {
    this.tables().forEach((t, i) => t?.truncate(this.marks[i]!));
  }

  /** Ends the account-hour with its `account_hours` row. */
  endHour(rootAccountId: number | null, cloudspaceCount: number): void {
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

  private key(c: (ColumnData | undefined)[], r: number, cloudSpaceId: number): void {
    setI64(c[0], r, this.accountId);
    setI64(c[1], r, this.hourEpoch);
    setI32(c[2], r, cloudSpaceId);
  }

  cloudSpace(cloudSpaceId: number, accountId: number, state: string): void {
    const t = this.cloudspaces;
    if (t === undefined) return;
    const r = t.next();
    const c = t.columns;
    this.key(c, r, cloudSpaceId);
    setI32(c[3], r, accountId);
    setStr(t, 4, r, state);
  }

  machine(cloudSpaceId: number, id: number, type: string, vcpus: number, cpuMinutes: number, mem: number, imageName: string, status: string): void {
    if (type === GATEWAY_TYPE) {
      const t = this.gateways;
      if (t === undefined) return;
      const r = t.next();
      const c = t.columns;
      this.key(c, r, cloudSpaceId);
      setI32(c[3], r, id);
      setI32(c[4], r, vcpus);
      setF64(c[5], r, cpuMinutes);
      setF64(c[6], r, mem);
      setStr(t, 7, r, imageName);
      setStr(t, 8, r, status);
      return;
    }
    const t = this.machines;
    if (t === undefined) return;
    const r = t.next();
    const c = t.columns;
    this.key(c, r, cloudSpaceId);
    setI32(c[3], r, id);
    setStr(t, 4, r, type);
    setI32(c[5], r, vcpus);
    setF64(c[6], r, cpuMinutes);
    setF64(c[7], r, mem);
    setStr(t, 8, r, imageName);
    setStr(t, 9, r, status);
  }

  disk(
    cloudSpaceId: number, machineId: number, index: number, id: number, size: number,
    iopsRead: number, iopsWrite: number, iopsReadMax: number, iopsWriteMax: number, configuredIops: ArrayLike<number> | null,
  ): void {
    const t = this.disks;
    if (t === undefined) return;
    const r = t.next();
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

  nic(cloudSpaceId: number, machineId: number, machineType: string, index: number, id: number, type: string, tx: number, rx: number): void {
    const t = this.nics;
    if (t === undefined) return;
    const r = t.next();
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

  /** The staged rows of every table asked for. */
  finish(): ColumnBatch {
    const batch: ColumnBatch = {};
    const names: DataTable[] = ["account_hours", "cloudspaces", "machines", "gateways", "disks", "nics"];
    this.tables().forEach((t, i) => {
      if (t !== undefined) batch[names[i]!] = t.finish();
    });
    return batch;
  }
}

/** Scratch for one disk's configured limits, in field order. */
const limits = new Float64Array(CONFIGURED_IOPS_FIELDS.length);

/**
 * Stages decoded account-hours column by column for the given tables (the records'
 * counterpart of decoding straight into a {@link ColumnBuilder}).
 */
export function buildColumns(hours: readonly DecodedAccountHour[], tables: ReadonlySet<DataTable>, selection?: ColumnSelection): ColumnBatch {
  const builder = new ColumnBuilder(tables, 0, selection);
  for (const h of hours) {
    builder.beginHour(h.accountId, h.hourEpoch);
    for (const space of h.account.cloudspaces) {
      const csId = space.cloudSpaceId;
      for (const m of space.machines) {
        m.networks.forEach((n, i) => builder.nic(csId, m.id, m.type, i, n.id, n.type, n.tx, n.rx));
        m.disks.forEach((d, i) => {
          const q = d.configuredIops;
          if (q !== null) CONFIGURED_IOPS_FIELDS.forEach((name, f) => (limits[f] = q[name]));
          builder.disk(csId, m.id, i, d.id, d.size, d.iopsRead, d.iopsWrite, d.iopsReadMax, d.iopsWriteMax, q === null ? null : limits);
        });
        builder.machine(csId, m.id, m.type, m.vcpus, m.cpuMinutes, m.mem, m.imageName, m.status);
      }
      builder.cloudSpace(csId, space.accountId, space.state);
    }
    builder.endHour(h.rootAccountId, h.account.cloudspaces.length);
  }
  return builder.finish();
}
