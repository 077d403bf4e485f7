import { DuckDBDataChunk, type DuckDBAppender, type DuckDBConnection, type DuckDBType, type DuckDBVector } from "@duckdb/node-api";
import type { DecodedAccountHour } from "../capnp/records.js";
import { DATA_TABLES, type DataTable } from "./schema.js";

/** The machine type of the cloud space's virtual gateway (SPEC 2.3). */
export const GATEWAY_TYPE = "routeros";

/** Options of {@link appendAccountHours}. */
export interface AppendOptions {
  /** The data tables to fill; the others are left alone. Default: every data table. */
  tables?: readonly DataTable[];
}

/** Rows per DuckDB data chunk: DuckDB's vector size, the most a chunk holds. */
const CHUNK_ROWS = 2048;

const NO_IOPS = {
  totalBytesSec: 0, readBytesSec: 0, writeBytesSec: 0, totalIopsSec: 0, readIopsSec: 0,
  writeIopsSec: 0, totalBytesSecMax: 0, readBytesSecMax: 0, writeBytesSecMax: 0,
  totalIopsSecMax: 0, readIopsSecMax: 0, writeIopsSecMax: 0, sizeIopsSec: 0,
};

/**
 * Fills DuckDB data chunks of one table column by column (values are set in JS-side
 * vectors, copied to DuckDB once per chunk) and appends each full chunk: several times
 * faster than the row appender's one native call per value.
 */
class ChunkWriter {
  private readonly types: DuckDBType[];
  private chunk: DuckDBDataChunk | undefined;
  /** The current chunk's column vectors; set values with `v[column].setItem(row, value)`. */
  v: DuckDBVector[] = [];
  private rows = 0;

  constructor(private readonly appender: DuckDBAppender) {
    this.types = Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i));
  }

  /** The index of a new row in the current chunk (appending the chunk first when full). */
  row(): number {
    if (this.chunk === undefined || this.rows === CHUNK_ROWS) {
      this.flush();
      this.chunk = DuckDBDataChunk.create(this.types, CHUNK_ROWS);
      this.v = this.types.map((_, i) => this.chunk!.getColumnVector(i));
    }
    return this.rows++;
  }

  /** Appends the rows set so far. */
  flush(): void {
    if (this.chunk === undefined || this.rows === 0) return;
    for (const vector of this.v) vector.flush();
    this.chunk.rowCount = this.rows;
    this.appender.appendDataChunk(this.chunk);
    this.chunk = undefined;
    this.rows = 0;
  }

  close(): void {
    this.appender.closeSync();
  }
}

/**
 * Appends decoded account-hours to the data tables of `schema.ts`, in the connection's
 * current transaction (or auto-committed when there is none). The caller owns
 * transactions and the manifest. Gateways (`type = "routeros"`) go to `gateways`, every
 * other machine to `machines`; disks and NICs keep their position in the owner's list.
 */
export async function appendAccountHours(
  connection: DuckDBConnection,
  hours: Iterable<DecodedAccountHour>,
  options: AppendOptions = {},
): Promise<void> {
  const wanted = new Set<DataTable>(options.tables ?? DATA_TABLES);
  const writers = new Map<DataTable, ChunkWriter>();
  try {
    for (const name of wanted) writers.set(name, new ChunkWriter(await connection.createAppender(name)));
    const ah = writers.get("account_hours");
    const cs = writers.get("cloudspaces");
    const vm = writers.get("machines");
    const gw = writers.get("gateways");
    const dk = writers.get("disks");
    const nc = writers.get("nics");
    for (const h of hours) {
      const acc = BigInt(h.accountId);
      const hour = BigInt(h.hourEpoch);
      const key = (w: ChunkWriter, csId: number): number => {
        const r = w.row();
        w.v[0]!.setItem(r, acc);
        w.v[1]!.setItem(r, hour);
        w.v[2]!.setItem(r, csId);
        return r;
      };
      if (ah) {
        const r = ah.row();
        ah.v[0]!.setItem(r, acc);
        ah.v[1]!.setItem(r, hour);
        ah.v[2]!.setItem(r, h.rootAccountId === null ? null : BigInt(h.rootAccountId));
        ah.v[3]!.setItem(r, h.account.cloudspaces.length);
      }
      for (const space of h.account.cloudspaces) {
        const csId = space.cloudSpaceId;
        if (cs) {
          const r = key(cs, csId);
          cs.v[3]!.setItem(r, space.accountId);
          cs.v[4]!.setItem(r, space.state);
        }
        for (const m of space.machines) {
          const isGateway = m.type === GATEWAY_TYPE;
          if (isGateway && gw) {
            const r = key(gw, csId);
            const v = gw.v;
            v[3]!.setItem(r, m.id);
            v[4]!.setItem(r, m.vcpus);
            v[5]!.setItem(r, m.cpuMinutes);
            v[6]!.setItem(r, m.mem);
            v[7]!.setItem(r, m.imageName);
            v[8]!.setItem(r, m.status);
          } else if (!isGateway && vm) {
            const r = key(vm, csId);
            const v = vm.v;
            v[3]!.setItem(r, m.id);
            v[4]!.setItem(r, m.type);
            v[5]!.setItem(r, m.vcpus);
            v[6]!.setItem(r, m.cpuMinutes);
            v[7]!.setItem(r, m.mem);
            v[8]!.setItem(r, m.imageName);
            v[9]!.setItem(r, m.status);
          }
          if (dk) {
            for (let i = 0; i < m.disks.length; i++) {
              const d = m.disks[i]!;
              const r = key(dk, csId);
              const v = dk.v;
              v[3]!.setItem(r, m.id);
              v[4]!.setItem(r, i);
              v[5]!.setItem(r, d.id);
              v[6]!.setItem(r, d.size);
              v[7]!.setItem(r, d.iopsRead);
              v[8]!.setItem(r, d.iopsWrite);
              v[9]!.setItem(r, d.iopsReadMax);
              v[10]!.setItem(r, d.iopsWriteMax);
              v[11]!.setItem(r, d.configuredIops !== null);
              const c = d.configuredIops ?? NO_IOPS;
              v[12]!.setItem(r, c.totalBytesSec);
              v[13]!.setItem(r, c.readBytesSec);
              v[14]!.setItem(r, c.writeBytesSec);
              v[15]!.setItem(r, c.totalIopsSec);
              v[16]!.setItem(r, c.readIopsSec);
              v[17]!.setItem(r, c.writeIopsSec);
              v[18]!.setItem(r, c.totalBytesSecMax);
              v[19]!.setItem(r, c.readBytesSecMax);
              v[20]!.setItem(r, c.writeBytesSecMax);
              v[21]!.setItem(r, c.totalIopsSecMax);
              v[22]!.setItem(r, c.readIopsSecMax);
              v[23]!.setItem(r, c.writeIopsSecMax);
              v[24]!.setItem(r, c.sizeIopsSec);
            }
          }
          if (nc) {
            for (let i = 0; i < m.networks.length; i++) {
              const n = m.networks[i]!;
              const r = key(nc, csId);
              const v = nc.v;
              v[3]!.setItem(r, m.id);
              v[4]!.setItem(r, isGateway);
              v[5]!.setItem(r, i);
              v[6]!.setItem(r, n.id);
              v[7]!.setItem(r, n.type);
              v[8]!.setItem(r, n.tx);
              v[9]!.setItem(r, n.rx);
            }
          }
        }
      }
    }
    for (const w of writers.values()) w.flush();
  } finally {
    for (const w of writers.values()) w.close();
  }
}
