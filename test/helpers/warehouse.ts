import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import type { DecodedAccountHour, Disk, Nic, VMachine } from "../../src/capnp/records.js";
import { appendAccountHours } from "../../src/store/append.js";
import { SCHEMA_SQL } from "../../src/store/schema.js";
import { ingest } from "../../src/store/ingest.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";

/** Test helper: an in-memory warehouse loaded with hand-made account-hours. */
export async function memoryWarehouse(hours: DecodedAccountHour[]): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  await connection.run(SCHEMA_SQL);
  await connection.run("BEGIN");
  await appendAccountHours(connection, hours);
  await connection.run("COMMIT");
  return connection;
}

/** A VM with defaults: 1 vCPU, 1024 MB, no disks, no NICs, RUNNING, an Ubuntu image. */
export function vm(id: number, fields: Partial<VMachine> = {}): VMachine {
  return {
    id,
    type: "vm",
    vcpus: 1,
    cpuMinutes: 0,
    mem: 1024,
    networks: [],
    disks: [],
    imageName: "ubuntu-22.04",
    status: "RUNNING",
    ...fields,
  };
}

/** The cloud space's gateway (type routeros, id 0) with the given NICs. */
export function gateway(networks: Nic[]): VMachine {
  return {
    id: 0,
    type: "routeros",
    vcpus: 1,
    cpuMinutes: 1,
    mem: 256,
    networks,
    disks: [],
    imageName: "routeros",
    status: "RUNNING",
  };
}

/** A disk of `size` GB; `limits` sets configuredIops (null: a disk of the older schema). */
export function disk(
  id: number,
  size: number,
  limits: { total?: number; read?: number; write?: number } | null = {},
  iops = { read: 0, write: 0 },
): Disk {
  const configuredIops =
    limits === null
      ? null
      : {
          totalBytesSec: 0,
          readBytesSec: 0,
          writeBytesSec: 0,
          totalIopsSec: limits.total ?? 0,
          readIopsSec: limits.read ?? 0,
          writeIopsSec: limits.write ?? 0,
          totalBytesSecMax: 0,
          readBytesSecMax: 0,
          writeBytesSecMax: 0,
          totalIopsSecMax: 0,
          readIopsSecMax: 0,
          writeIopsSecMax: 0,
          sizeIopsSec: 0,
        };
  return { id, size, iopsRead: iops.read, iopsWrite: iops.write, iopsReadMax: 0, iopsWriteMax: 0, configuredIops };
}

/** A NIC. */
export function nic(type: string, tx: number, rx: number, id = 0): Nic {
  return { id, type, tx, rx };
}

/** One account-hour with its cloud spaces: `{ csId: [machines] }`, every cloud space DEPLOYED unless `states` says otherwise. */
export function accountHour(
  accountId: number,
  hourEpoch: number,
  cloudspaces: Record<number, VMachine[]>,
  states: Record<number, string> = {},
): DecodedAccountHour {
  return {
    accountId,
    hourEpoch,
    rootAccountId: accountId,
    account: {
      accountId,
      cloudspaces: Object.entries(cloudspaces).map(([cs, machines]) => ({
        cloudSpaceId: Number(cs),
        accountId,
        machines,
        state: states[Number(cs)] ?? "DEPLOYED",
      })),
    },
  };
}

/** Epoch seconds of 2026-10-01T00:00Z, and one hour. */
export const OCT_1 = 1790812800;
export const HOUR = 3600;

/**
 * A warehouse file as a version without the billing facts left it: ingested, then its facts
 * tables and schema version dropped (all an older version's file lacks).
 */
export async function agedWarehouse(inputs: string[], db: string): Promise<void> {
  await ingest(inputs, { db, skipBad: true });
  const { instance, connection } = await openDatabaseFile(db);
  try {
    for (const table of ["machine_facts", "gateway_facts", "warehouse_meta"])
      await connection.run(`DROP TABLE ${table}`);
    await connection.run("CHECKPOINT");
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A warehouse file's data tables, each row as JSON, sorted: what every report reads (two runs that hold the same hours give the same). */
export async function dataTables(db: string): Promise<Record<string, string[]>> {
  const instance = await DuckDBInstance.create(db, { access_mode: "READ_ONLY" });
  const connection = await instance.connect();
  try {
    const out: Record<string, string[]> = {};
    for (const table of ["account_hours", "cloudspaces", "machines", "gateways", "disks", "nics"]) {
      out[table] = (await connection.runAndReadAll(`SELECT * FROM ${table} ORDER BY ALL`))
        .getRowObjectsJS()
        .map((r) => JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? Number(v) : v)));
    }
    return out;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
