import type { DecodedAccountHour } from "../capnp/records.js";
import type { DataTable } from "./schema.js";

/** The machine type of the cloud space's virtual gateway (SPEC 2.3). */
export const GATEWAY_TYPE = "routeros";

/**
 * How a column is staged: `i64` as little-endian (low, high) Int32 pairs (DuckDB BIGINT
 * bytes, built without BigInts), `i64null` the same plus a validity byte per row, `i32`
 * INTEGER, `f64` DOUBLE, `bool` BOOLEAN (one byte), `str` VARCHAR (JS strings).
 */
export type ColumnKind = "i64" | "i64null" | "i32" | "f64" | "bool" | "str";

/** The staged columns of each data table, in the column order of schema.ts. */
export const TABLE_COLUMNS: Readonly<Record<DataTable, readonly ColumnKind[]>> = {
  account_hours: ["i64", "i64", "i64null", "i32"],
  cloudspaces: ["i64", "i64", "i32", "i32", "str"],
  machines: ["i64", "i64", "i32", "i32", "str", "i32", "f64", "f64", "str", "str"],
  gateways: ["i64", "i64", "i32", "i32", "i32", "f64", "f64", "str", "str"],
  disks: ["i64", "i64", "i32", "i32", "i32", "i32", "f64", "f64", "f64", "f64", "f64", "bool", ...Array<ColumnKind>(13).fill("f64")],
  nics: ["i64", "i64", "i32", "i32", "bool", "i32", "i32", "str", "f64", "f64"],
};

/** One staged column: typed arrays for numbers, an array for strings, validity for `i64null`. */
export type ColumnData =
  | { kind: "i64"; values: Int32Array }
  | { kind: "i64null"; values: Int32Array; valid: Uint8Array }
  | { kind: "i32"; values: Int32Array }
  | { kind: "f64"; values: Float64Array }
  | { kind: "bool"; values: Uint8Array }
  | StringColumn;

/**
 * A VARCHAR column as DuckDB's 16-byte string records: strings of at most 12 UTF-8 bytes
 * are inlined in `records` (length, then the bytes, zero-padded: DuckDB's own layout, copied
 * to the vector as is); longer ones are listed in `longRows`/`longValues` and assigned one
 * by one.
 */
export interface StringColumn {
  kind: "str";
  records: Uint8Array;
  longRows: number[];
  longValues: string[];
}

/** The rows of one table, column by column. */
export interface TableColumns {
  rows: number;
  columns: ColumnData[];
}

/** Decoded account-hours staged column by column, per table: what workers hand to the loader. */
export type ColumnBatch = Partial<Record<DataTable, TableColumns>>;

function allocate(table: DataTable, rows: number): TableColumns {
  return {
    rows,
    columns: TABLE_COLUMNS[table].map((kind): ColumnData => {
      switch (kind) {
        case "i64": return { kind, values: new Int32Array(rows * 2) };
        case "i64null": return { kind, values: new Int32Array(rows * 2), valid: new Uint8Array(rows) };
        case "i32": return { kind, values: new Int32Array(rows) };
        case "f64": return { kind, values: new Float64Array(rows) };
        case "bool": return { kind, values: new Uint8Array(rows) };
        case "str": return { kind, records: new Uint8Array(rows * 16), longRows: [], longValues: [] };
      }
    }),
  };
}

const TWO_32 = 4294967296;

/** Writes an integer (|value| < 2^53) as a little-endian int64 at pair `row`. */
function setI64(values: Int32Array, row: number, value: number): void {
  const high = Math.floor(value / TWO_32);
  values[2 * row] = value - high * TWO_32;
  values[2 * row + 1] = high;
}

const i64 = (c: ColumnData): Int32Array => (c as { values: Int32Array }).values;
const i32 = (c: ColumnData): Int32Array => (c as { values: Int32Array }).values;
const f64 = (c: ColumnData): Float64Array => (c as { values: Float64Array }).values;
const u8 = (c: ColumnData): Uint8Array => (c as { values: Uint8Array }).values;

/** The most UTF-8 bytes DuckDB inlines in a string record. */
const INLINE_BYTES = 12;
const encoder = new TextEncoder();
/** Inline string records by value, as 4 int32 words (null: too long to inline); the values repeat a lot (types, states, images). */
const recordCache = new Map<string, Int32Array | null>();

function inlineRecord(value: string): Int32Array | null {
  let record = recordCache.get(value);
  if (record === undefined) {
    const bytes = encoder.encode(value);
    record = null;
    if (bytes.length <= INLINE_BYTES) {
      const buffer = new Uint8Array(16);
      new DataView(buffer.buffer).setUint32(0, bytes.length, true);
      buffer.set(bytes, 4);
      record = new Int32Array(buffer.buffer);
    }
    if (recordCache.size < 10_000) recordCache.set(value, record);
  }
  return record;
}

/** A writer of one string column. */
class StringWriter {
  private readonly words: Int32Array;
  constructor(private readonly column: StringColumn) {
    this.words = new Int32Array(column.records.buffer, column.records.byteOffset, column.records.byteLength / 4);
  }
  set(row: number, value: string): void {
    const record = inlineRecord(value);
    if (record !== null) {
      const w = this.words;
      const at = row * 4;
      w[at] = record[0]!;
      w[at + 1] = record[1]!;
      w[at + 2] = record[2]!;
      w[at + 3] = record[3]!;
    } else {
      this.column.longRows.push(row);
      this.column.longValues.push(value);
    }
  }
}
const str = (c: ColumnData): StringWriter => new StringWriter(c as StringColumn);

/**
 * Stages decoded account-hours column by column for the given tables (typed arrays sized
 * exactly after counting the rows): gateways (`type = "routeros"`) go to `gateways`, every
 * other machine to `machines`; disks and NICs keep their position in the owner's list.
 * Pure JS, so it runs in a worker and its buffers can be transferred.
 */
export function buildColumns(hours: readonly DecodedAccountHour[], tables: ReadonlySet<DataTable>): ColumnBatch {
  let nSpaces = 0, nVms = 0, nGateways = 0, nDisks = 0, nNics = 0;
  for (const h of hours) {
    for (const cs of h.account.cloudspaces) {
      nSpaces++;
      for (const m of cs.machines) {
        if (m.type === GATEWAY_TYPE) nGateways++;
        else nVms++;
        nDisks += m.disks.length;
        nNics += m.networks.length;
      }
    }
  }
  const batch: ColumnBatch = {};
  const want = (t: DataTable, rows: number) => (tables.has(t) ? (batch[t] = allocate(t, rows)) : undefined);
  const ah = want("account_hours", hours.length)?.columns;
  const cs = want("cloudspaces", nSpaces)?.columns;
  const vm = want("machines", nVms)?.columns;
  const gw = want("gateways", nGateways)?.columns;
  const dk = want("disks", nDisks)?.columns;
  const nc = want("nics", nNics)?.columns;
  // Locals per column: monomorphic typed-array writes in the loops below.
  const csKey = cs && [i64(cs[0]!), i64(cs[1]!), i32(cs[2]!)] as const;
  const csAccount = cs && i32(cs[3]!);
  const csState = cs && str(cs[4]!);
  const vmKey = vm && [i64(vm[0]!), i64(vm[1]!), i32(vm[2]!)] as const;
  const [vmId, vmVcpus] = vm ? [i32(vm[3]!), i32(vm[5]!)] : [];
  const [vmCpu, vmMem] = vm ? [f64(vm[6]!), f64(vm[7]!)] : [];
  const [vmType, vmImage, vmStatus] = vm ? [str(vm[4]!), str(vm[8]!), str(vm[9]!)] : [];
  const gwKey = gw && [i64(gw[0]!), i64(gw[1]!), i32(gw[2]!)] as const;
  const [gwId, gwVcpus] = gw ? [i32(gw[3]!), i32(gw[4]!)] : [];
  const [gwCpu, gwMem] = gw ? [f64(gw[5]!), f64(gw[6]!)] : [];
  const [gwImage, gwStatus] = gw ? [str(gw[7]!), str(gw[8]!)] : [];
  const dkKey = dk && [i64(dk[0]!), i64(dk[1]!), i32(dk[2]!)] as const;
  const [dkMachine, dkIndex, dkId] = dk ? [i32(dk[3]!), i32(dk[4]!), i32(dk[5]!)] : [];
  const dkF = dk ? dk.slice(6).map((c) => (c.kind === "f64" ? c.values : new Float64Array(0))) : [];
  const dkHasIops = dk && u8(dk[11]!);
  const ncKey = nc && [i64(nc[0]!), i64(nc[1]!), i32(nc[2]!)] as const;
  const [ncMachine, ncIndex, ncId] = nc ? [i32(nc[3]!), i32(nc[5]!), i32(nc[6]!)] : [];
  const ncGateway = nc && u8(nc[4]!);
  const ncType = nc && str(nc[7]!);
  const [ncTx, ncRx] = nc ? [f64(nc[8]!), f64(nc[9]!)] : [];
  const setKey = (key: readonly [Int32Array, Int32Array, Int32Array], r: number, accountId: number, hourEpoch: number, csId: number): void => {
    setI64(key[0], r, accountId);
    setI64(key[1], r, hourEpoch);
    key[2][r] = csId;
  };

  let rSpace = 0, rVm = 0, rGw = 0, rDisk = 0, rNic = 0;
  for (let rHour = 0; rHour < hours.length; rHour++) {
    const h = hours[rHour]!;
    const { accountId, hourEpoch } = h;
    if (ah) {
      setI64(i64(ah[0]!), rHour, accountId);
      setI64(i64(ah[1]!), rHour, hourEpoch);
      const root = ah[2] as Extract<ColumnData, { kind: "i64null" }>;
      if (h.rootAccountId !== null) {
        setI64(root.values, rHour, h.rootAccountId);
        root.valid[rHour] = 1;
      }
      i32(ah[3]!)[rHour] = h.account.cloudspaces.length;
    }
    for (const space of h.account.cloudspaces) {
      const csId = space.cloudSpaceId;
      if (csKey) {
        setKey(csKey, rSpace, accountId, hourEpoch, csId);
        csAccount![rSpace] = space.accountId;
        csState!.set(rSpace, space.state);
      }
      rSpace++;
      for (const m of space.machines) {
        const isGateway = m.type === GATEWAY_TYPE;
        if (isGateway) {
          if (gwKey) {
            setKey(gwKey, rGw, accountId, hourEpoch, csId);
            gwId![rGw] = m.id;
            gwVcpus![rGw] = m.vcpus;
            gwCpu![rGw] = m.cpuMinutes;
            gwMem![rGw] = m.mem;
            gwImage!.set(rGw, m.imageName);
            gwStatus!.set(rGw, m.status);
          }
          rGw++;
        } else {
          if (vmKey) {
            setKey(vmKey, rVm, accountId, hourEpoch, csId);
            vmId![rVm] = m.id;
            vmType!.set(rVm, m.type);
            vmVcpus![rVm] = m.vcpus;
            vmCpu![rVm] = m.cpuMinutes;
            vmMem![rVm] = m.mem;
            vmImage!.set(rVm, m.imageName);
            vmStatus!.set(rVm, m.status);
          }
          rVm++;
        }
        if (dkKey) {
          for (let i = 0; i < m.disks.length; i++, rDisk++) {
            const d = m.disks[i]!;
            setKey(dkKey, rDisk, accountId, hourEpoch, csId);
            dkMachine![rDisk] = m.id;
            dkIndex![rDisk] = i;
            dkId![rDisk] = d.id;
            dkF[0]![rDisk] = d.size;
            dkF[1]![rDisk] = d.iopsRead;
            dkF[2]![rDisk] = d.iopsWrite;
            dkF[3]![rDisk] = d.iopsReadMax;
            dkF[4]![rDisk] = d.iopsWriteMax;
            const q = d.configuredIops;
            if (q !== null) {
              dkHasIops![rDisk] = 1;
              dkF[6]![rDisk] = q.totalBytesSec;
              dkF[7]![rDisk] = q.readBytesSec;
              dkF[8]![rDisk] = q.writeBytesSec;
              dkF[9]![rDisk] = q.totalIopsSec;
              dkF[10]![rDisk] = q.readIopsSec;
              dkF[11]![rDisk] = q.writeIopsSec;
              dkF[12]![rDisk] = q.totalBytesSecMax;
              dkF[13]![rDisk] = q.readBytesSecMax;
              dkF[14]![rDisk] = q.writeBytesSecMax;
              dkF[15]![rDisk] = q.totalIopsSecMax;
              dkF[16]![rDisk] = q.readIopsSecMax;
              dkF[17]![rDisk] = q.writeIopsSecMax;
              dkF[18]![rDisk] = q.sizeIopsSec;
            }
          }
        }
        if (ncKey) {
          for (let i = 0; i < m.networks.length; i++, rNic++) {
            const n = m.networks[i]!;
            setKey(ncKey, rNic, accountId, hourEpoch, csId);
            ncMachine![rNic] = m.id;
            ncGateway![rNic] = isGateway ? 1 : 0;
            ncIndex![rNic] = i;
            ncId![rNic] = n.id;
            ncType!.set(rNic, n.type);
            ncTx![rNic] = n.tx;
            ncRx![rNic] = n.rx;
          }
        }
      }
    }
  }
  return batch;
}

/** The buffers of a batch, to transfer it from a worker without copying. */
export function batchBuffers(batch: ColumnBatch): ArrayBuffer[] {
  const buffers: ArrayBuffer[] = [];
  for (const table of Object.values(batch)) {
    for (const c of table.columns) {
      if (c.kind === "str") {
        buffers.push(c.records.buffer as ArrayBuffer);
        continue;
      }
      buffers.push(c.values.buffer as ArrayBuffer);
      if (c.kind === "i64null") buffers.push(c.valid.buffer as ArrayBuffer);
    }
  }
  return buffers;
}
