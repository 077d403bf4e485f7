import type { DuckDBConnection } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { cloudspaceStats, machineStats, STATS_CSV_COLUMNS, statsToCsv } from "../../src/internal.js";
import { fixtureConnection, T0, T5 } from "./statsFixture.js";

let connection: DuckDBConnection;
beforeAll(async () => {
  connection = await fixtureConnection();
});

const rows = (csv: string) =>
  csv
    .trimEnd()
    .split("\r\n")
    .map((line) => line.split(","));

describe("statsToCsv", () => {
  it("writes one long row per hour, series and key, with time as ISO UTC and epoch and the unit", async () => {
    const r = await machineStats(connection, {
      machineId: 101,
      accountId: 7,
      from: T0,
      till: T5,
      include: ["cpu", "network"],
    });
    const [header, ...body] = rows(statsToCsv(r, { entity: "machine", id: 101 }));
    expect(header).toEqual([...STATS_CSV_COLUMNS]);
    expect(body[0]).toEqual(["2026-10-01T00:00:00Z", String(T0), "machine", "101", "cpu", "", "25", "%"]);
    expect(body).toContainEqual([
      "2026-10-01T03:00:00Z",
      String(T0 + 3 * 3600),
      "machine",
      "101",
      "network",
      "0.out",
      "4",
      "KB/s",
    ]);
    // cpu: 4 hours; network: NIC 0 in/out for 4 hours, NIC 1 in/out for the 2 hours it exists
    expect(body).toHaveLength(4 + 4 * 2 + 2 * 2);
  });

  it("leaves out the hours at which a disk or NIC is absent, so a pivot shows an empty cell", async () => {
    const r = await machineStats(connection, {
      machineId: 101,
      accountId: 7,
      from: T0,
      till: T5,
      include: ["vdisk-iops"],
    });
    const body = rows(statsToCsv(r, { entity: "machine", id: 101 })).slice(1);
    expect(body.filter((row) => row[5] === "12").map((row) => [row[0], row[6]])).toEqual([
      ["2026-10-01T03:00:00Z", "6"],
      ["2026-10-01T04:00:00Z", "0"],
    ]);
    expect(body.some((row) => row.includes("null"))).toBe(false);
  });

  it("keys fixed sub-series by their path and gives each its unit", async () => {
    const r = await cloudspaceStats(connection, {
      cloudspaceId: 70,
      accountId: 7,
      from: T0,
      till: T0 + 3600,
      include: ["cpu", "network"],
    });
    const body = rows(statsToCsv(r, { entity: "cloudspace", id: 70 })).slice(1);
    expect(body.map((row) => [row[4], row[5], row[6], row[7]])).toEqual([
      ["cpu", "allocated", "2", "vCPUs"],
      ["cpu", "inuse", "30", "%"],
      // (2 × 1024 × 3600 + 1024²) / 1024² and (11 × 1024 × 3600 + 2 × 1024²) / 1024²
      ["network", "vms.in", "8.03125", "MB"],
      ["network", "vms.out", "40.671875", "MB"],
      ["network", "gateways.in", "1", "MB"],
      ["network", "gateways.out", "11", "MB"],
    ]);
  });

  it("writes only the header when there is no sample", () => {
    expect(statsToCsv({ time: [], series: { cpu: [] } }, { entity: "machine", id: 1 })).toBe(
      `${STATS_CSV_COLUMNS.join(",")}\r\n`,
    );
  });
});
