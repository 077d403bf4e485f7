import type { DuckDBConnection } from "@duckdb/node-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryWarehouse } from "../helpers/warehouse.js";
import type { DecodedAccountHour, VMachine } from "../../src/capnp/records.js";
import { appendAccountHours } from "../../src/store/append.js";
import { TABLE_COLUMNS } from "../../src/load/columnBatch.js";
import { DATA_TABLES } from "../../src/store/schema.js";
import { MEASURED_FIELDS } from "../../src/load/impossibleValues.js";

const gateway: VMachine = {
  id: 0,
  type: "routeros",
  vcpus: 1,
  cpuMinutes: 1.5,
  mem: 128,
  imageName: "routeros",
  status: "RUNNING",
  disks: [],
  networks: [
    { id: 0, type: "external", tx: 1000, rx: 0 },
    { id: 0, type: "space", tx: 20, rx: 30 },
  ],
};
const vm = (id: number, memMb: number): VMachine => ({
  id,
  type: "vm",
  vcpus: 2,
  cpuMinutes: 30,
  mem: memMb,
  imageName: "Windows 2019",
  status: "RUNNING",
  disks: [
    { id: 11, size: 12, iopsRead: 1, iopsWrite: 2, iopsReadMax: 3, iopsWriteMax: 4, configuredIops: null },
    {
      id: 12,
      size: 512,
      iopsRead: 5,
      iopsWrite: 6,
      iopsReadMax: 7,
      iopsWriteMax: 8,
      configuredIops: {
        totalBytesSec: 0,
        readBytesSec: 0,
        writeBytesSec: 0,
        totalIopsSec: 2000,
        readIopsSec: 0,
        writeIopsSec: 0,
        totalBytesSecMax: 0,
        readBytesSecMax: 0,
        writeBytesSecMax: 0,
        totalIopsSecMax: 0,
        readIopsSecMax: 0,
        writeIopsSecMax: 0,
        sizeIopsSec: 0,
      },
    },
  ],
  networks: [{ id: 0, type: "space", tx: 5, rx: 6 }],
});
const hour = (hourEpoch: number, machines: VMachine[]): DecodedAccountHour => ({
  accountId: 7,
  hourEpoch,
  rootAccountId: 7,
  account: { accountId: 7, cloudspaces: [{ cloudSpaceId: 3, accountId: 7, state: "DEPLOYED", machines }] },
});

let connection: DuckDBConnection;
beforeEach(async () => {
  connection = await memoryWarehouse([]);
});
afterEach(() => {
  connection.closeSync();
});
const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson();

describe("appending decoded account-hours", () => {
  it("keeps the gateway apart from the machines, with its NICs flagged as the gateway's", async () => {
    await appendAccountHours(connection, [hour(3600, [gateway, vm(5, 5120)])]);
    expect(await rows("SELECT machine_id, type, vcpus, mem_mb, image_name FROM machines")).toEqual([
      { machine_id: 5, type: "vm", vcpus: 2, mem_mb: 5120, image_name: "Windows 2019" },
    ]);
    expect(await rows("SELECT gateway_id, cpu_minutes, mem_mb FROM gateways")).toEqual([
      { gateway_id: 0, cpu_minutes: 1.5, mem_mb: 128 },
    ]);
    expect(
      await rows(
        "SELECT machine_id, is_gateway, nic_index, type, tx_bytes, rx_bytes FROM nics ORDER BY is_gateway DESC, nic_index",
      ),
    ).toEqual([
      { machine_id: 0, is_gateway: true, nic_index: 0, type: "external", tx_bytes: 1000, rx_bytes: 0 },
      { machine_id: 0, is_gateway: true, nic_index: 1, type: "space", tx_bytes: 20, rx_bytes: 30 },
      { machine_id: 5, is_gateway: false, nic_index: 0, type: "space", tx_bytes: 5, rx_bytes: 6 },
    ]);
  });

  it("stores disks in list order, with zero limits and has_configured_iops false for older-schema disks", async () => {
    await appendAccountHours(connection, [hour(3600, [vm(5, 5120)])]);
    expect(
      await rows(
        "SELECT disk_index, disk_id, size_gb, has_configured_iops, cfg_total_iops_sec FROM disks ORDER BY disk_index",
      ),
    ).toEqual([
      { disk_index: 0, disk_id: 11, size_gb: 12, has_configured_iops: false, cfg_total_iops_sec: 0 },
      { disk_index: 1, disk_id: 12, size_gb: 512, has_configured_iops: true, cfg_total_iops_sec: 2000 },
    ]);
  });

  it("appends more rows than one DuckDB chunk holds without losing or repeating any", async () => {
    const hours = Array.from({ length: 30 }, (_, h) =>
      hour(
        3600 * (h + 1),
        Array.from({ length: 100 }, (_, i) => vm(i + 1, 1024 + h)),
      ),
    );
    await appendAccountHours(connection, hours);
    expect(
      await rows(
        "SELECT count(*)::INT AS n, count(DISTINCT (hour_epoch, machine_id))::INT AS d, sum(mem_mb) AS mem FROM machines",
      ),
    ).toEqual([{ n: 3000, d: 3000, mem: 100 * (30 * 1024 + (29 * 30) / 2) }]);
    expect(await rows("SELECT count(*)::INT AS n FROM disks")).toEqual([{ n: 6000 }]);
  });

  it("fills only the tables asked for", async () => {
    await appendAccountHours(connection, [hour(3600, [gateway, vm(5, 5120)])], {
      tables: ["machines", "account_hours"],
    });
    expect(
      await rows(
        "SELECT (SELECT count(*) FROM machines)::INT AS m, (SELECT count(*) FROM account_hours)::INT AS a, (SELECT count(*) FROM disks)::INT AS d, (SELECT count(*) FROM nics)::INT AS n",
      ),
    ).toEqual([{ m: 1, a: 1, d: 0, n: 0 }]);
  });

  it("keeps every string exact across chunks: short, exactly 12 bytes, long and multi-byte", async () => {
    const images = [
      "Debian 12",
      "Ubuntu 22.04",
      "Windows 2019 Standard",
      "Rocky Linux 9",
      "",
      "Système Ω 2024 édition longue",
    ];
    const hours = Array.from({ length: 5 }, (_, h) =>
      hour(
        3600 * (h + 1),
        Array.from({ length: 500 }, (_, i) => ({ ...vm(i + 1, 1024), imageName: images[(i + h) % images.length]! })),
      ),
    );
    await appendAccountHours(connection, hours);
    const counts = await rows("SELECT image_name, count(*)::INT AS n FROM machines GROUP BY ALL ORDER BY image_name");
    const expected = new Map<string, number>();
    hours.forEach((h) =>
      h.account.cloudspaces[0]!.machines.forEach((m) =>
        expected.set(m.imageName, (expected.get(m.imageName) ?? 0) + 1),
      ),
    );
    expect(counts).toEqual(
      [...expected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([image_name, n]) => ({ image_name, n })),
    );
    expect(
      await rows(
        "SELECT count(*)::INT AS n FROM machines WHERE image_name = images[1 + (machine_id - 1 + hour_epoch // 3600 - 1) % 6]".replace(
          "images",
          `[${images.map((i) => `'${i}'`).join(",")}]`,
        ),
      ),
    ).toEqual([{ n: 2500 }]);
  });

  it("stores a NULL file account for hours made of cloud-space files", async () => {
    await appendAccountHours(connection, [
      { ...hour(3600, [vm(5, 1024)]), rootAccountId: null },
      hour(7200, [vm(5, 1024)]),
    ]);
    expect(await rows("SELECT hour_epoch, root_account_id FROM account_hours ORDER BY hour_epoch")).toEqual([
      { hour_epoch: "3600", root_account_id: null },
      { hour_epoch: "7200", root_account_id: "7" },
    ]);
  });

  it("appends again after a transaction that appended was rolled back", async () => {
    await connection.run("BEGIN");
    await appendAccountHours(connection, [hour(3600, [vm(5, 1024)])]);
    await connection.run("ROLLBACK");
    await appendAccountHours(connection, [hour(7200, [vm(5, 2048)])]);
    expect(await rows("SELECT hour_epoch, mem_mb FROM machines")).toEqual([{ hour_epoch: "7200", mem_mb: 2048 }]);
  });

  it("keeps each NULL file account on its own row across many chunks", async () => {
    const hours = Array.from({ length: 5000 }, (_, h) => ({
      ...hour(3600 * (h + 1), []),
      rootAccountId: h % 3 === 1 ? null : 7,
    }));
    await appendAccountHours(connection, hours, { tables: ["account_hours"] });
    expect(
      await rows(`SELECT count(*)::INT AS n, count(*) FILTER (WHERE root_account_id IS NULL)::INT AS nulls,
      count(*) FILTER (WHERE (root_account_id IS NULL) <> ((hour_epoch // 3600 - 1) % 3 = 1))::INT AS misplaced FROM account_hours`),
    ).toEqual([{ n: 5000, nulls: 1667, misplaced: 0 }]);
  });
});

describe("the staged column layout", () => {
  it("names every column of every data table in the DDL's order, with its type and nullability", async () => {
    const type = { i64: "BIGINT", i64null: "BIGINT", i32: "INTEGER", f64: "DOUBLE", bool: "BOOLEAN", str: "VARCHAR" };
    // measures are nullable: NULL is an impossible value of the file (docs/warehouse.md); the billing facts count it as 0, never NULL
    const measures = new Set(
      Object.values(MEASURED_FIELDS)
        .flat()
        .map((f) => f.column),
    );
    for (const table of DATA_TABLES) {
      const described = await rows(
        `SELECT column_name AS name, column_type AS type, "null" AS nullable FROM (DESCRIBE ${table})`,
      );
      const nullable = (name: string, kind: string) =>
        kind === "i64null" || (measures.has(name) && !table.endsWith("_facts"));
      expect(described, table).toEqual(
        TABLE_COLUMNS[table].map((c) => ({
          name: c.name,
          type: type[c.kind],
          nullable: nullable(c.name, c.kind) ? "YES" : "NO",
        })),
      );
    }
  });
});
