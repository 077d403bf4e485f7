import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { memoryWarehouse } from "../helpers/warehouse.js";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DecodedAccountHour, VMachine } from "../../src/capnp/records.js";
import { UsageError } from "../../src/base/errors.js";
import { reportToCsv, reportToXlsx } from "../../src/export/formatReport.js";
import { listReports, loadReportDefinition } from "../../src/store/reportDefinition.js";
import { runReport } from "../../src/store/runReport.js";

const DAY = 1790812800; // 2026-10-01T00:00Z
const vm = (
  id: number,
  imageName: string,
  vcpus: number,
  memMb: number,
  cpuMinutes: number,
  externalBytes = 0,
): VMachine => ({
  id,
  type: "vm",
  vcpus,
  cpuMinutes,
  mem: memMb,
  imageName,
  status: "RUNNING",
  disks: [{ id: 1, size: 512, iopsRead: 0, iopsWrite: 0, iopsReadMax: 0, iopsWriteMax: 0, configuredIops: null }],
  networks: externalBytes ? [{ id: 0, type: "external", tx: externalBytes, rx: 0 }] : [],
});
const hour = (accountId: number, hourEpoch: number, machines: VMachine[]): DecodedAccountHour => ({
  accountId,
  hourEpoch,
  rootAccountId: accountId,
  account: { accountId, cloudspaces: [{ cloudSpaceId: 1, accountId, state: "DEPLOYED", machines }] },
});

let connection: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  const gib = 1024 ** 3;
  connection = await memoryWarehouse([
    // Day 1, hours 0 and 1: a Windows VM (4 vCPU, 8 GiB, 60 CPU-minutes/h) and an Ubuntu VM (2 vCPU, 2 GiB, 30/h, 1 GiB out per hour).
    hour(7, DAY, [vm(1, "Windows 2019", 4, 8192, 60), vm(2, "Ubuntu 22.04", 2, 2048, 30, gib)]),
    hour(7, DAY + 3600, [vm(1, "Windows 2019", 4, 8192, 60), vm(2, "Ubuntu 22.04", 2, 2048, 30, gib)]),
    // Day 2, hour 0: only the Ubuntu VM; another account's VM.
    hour(7, DAY + 86400, [vm(2, "Ubuntu 22.04", 2, 2048, 120)]),
    hour(8, DAY, [vm(9, "Ubuntu 22.04", 1, 1024, 6)]),
  ]);
  dir = mkdtempSync(join(tmpdir(), "cloudunits-report-"));
});
afterAll(() => {
  connection.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe("shipped reports", () => {
  it("lists machine-hours per image, with allocated vCPU- and memory-hours", async () => {
    const result = await runReport(connection, loadReportDefinition("machine-hours-per-image"));
    expect(result.rows).toEqual([
      {
        image_name: "Ubuntu 22.04",
        machine_hours: 4,
        machines: 2,
        vcpu_hours: 7,
        memory_gib_hours: 7,
        running_hours: 4,
      },
      {
        image_name: "Windows 2019",
        machine_hours: 2,
        machines: 1,
        vcpu_hours: 8,
        memory_gib_hours: 16,
        running_hours: 2,
      },
    ]);
    expect(result.columns[3]).toEqual({ name: "vcpu_hours", title: "vCPU-hours", unit: "vCPU·h", format: "#,##0" });
  });

  it("ranks top consumers by CPU used, limited to an account and a period", async () => {
    const result = await runReport(connection, loadReportDefinition("top-consumers"), {
      accountId: 7,
      start: DAY,
      end: DAY + 86400,
    });
    expect(result.rows.map((r) => [r.machine_id, r.cpu_hours_used, r.disk_tb_hours, r.external_traffic_gib])).toEqual([
      [1, 2, 1, 0],
      [2, 1, 1, 2],
    ]);
  });

  it("totals each account's UTC days, with the hours that have a file", async () => {
    const result = await runReport(connection, loadReportDefinition("daily-totals"), { accountId: 7 });
    expect(result.rows).toEqual([
      {
        day_utc: "2026-10-01",
        account_id: 7,
        hours_with_file: 2,
        vm_hours: 4,
        vcpu_hours: 12,
        memory_gib_hours: 20,
        disk_tb_hours: 2,
        cpu_hours_used: 3,
        external_traffic_gib: 2,
      },
      {
        day_utc: "2026-10-02",
        account_id: 7,
        hours_with_file: 1,
        vm_hours: 1,
        vcpu_hours: 2,
        memory_gib_hours: 2,
        disk_tb_hours: 0.5,
        cpu_hours_used: 2,
        external_traffic_gib: 0,
      },
    ]);
  });
});

describe("report definitions and outputs", () => {
  it("runs a user's .sql with the column metadata of the .json beside it", async () => {
    writeFileSync(
      join(dir, "mine.sql"),
      "SELECT account_id, count(*) AS hours FROM account_hours WHERE hour_epoch < $end GROUP BY ALL ORDER BY ALL",
    );
    writeFileSync(
      join(dir, "mine.json"),
      JSON.stringify({ title: "Hours", tables: ["account_hours"], columns: { hours: { title: "Hours", unit: "h" } } }),
    );
    const definition = loadReportDefinition(join(dir, "mine.sql"));
    expect(definition.tables).toEqual(["account_hours"]);
    const result = await runReport(connection, definition, { end: DAY + 3600 });
    expect(reportToCsv(result)).toBe("account_id,hours\r\n7,1\r\n8,1\r\n");
  });

  it("refuses an unknown report name, listing the shipped ones", () => {
    expect(listReports()).toEqual(["daily-totals", "machine-hours-per-image", "top-consumers"]);
    expect(() => loadReportDefinition("nope")).toThrow(UsageError);
    expect(() => loadReportDefinition("nope")).toThrow(/daily-totals, machine-hours-per-image, top-consumers/);
  });

  it("writes an XLSX sheet with titles, units and each column's number format", async () => {
    const result = await runReport(connection, loadReportDefinition("machine-hours-per-image"));
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await reportToXlsx(result)) as never);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getCell("A1").value).toBe("Machine-hours per image");
    expect(sheet.getRow(3).values).toEqual([
      undefined,
      "Image",
      "Machine-hours (h)",
      "Machines",
      "vCPU-hours (vCPU·h)",
      "Memory (GiB·h)",
      "Running hours (h)",
    ]);
    expect(sheet.getCell("E5").value).toBe(16);
    expect(sheet.getCell("E5").numFmt).toBe("#,##0.00");
  });

  it("shows a user's times in ISO 8601 UTC, whole seconds, in every format: never JavaScript's 'Fri Nov 27 2026 10:26:42 GMT+0000'", async () => {
    const file = join(dir, "times.sql");
    writeFileSync(
      file,
      `SELECT TIMESTAMPTZ '2026-11-27 10:26:42.734+00' AS at_tz, TIMESTAMP '2026-11-27 10:26:42' AS at,
      DATE '2026-11-27' AS day, TIME '10:26:42' AS time_of_day, to_timestamp(1790812800) AS hour, NULL::TIMESTAMPTZ AS never`,
    );
    const result = await runReport(connection, loadReportDefinition(file));
    expect(result.rows).toEqual([
      {
        at_tz: "2026-11-27T10:26:42Z",
        at: "2026-11-27T10:26:42Z",
        day: "2026-11-27",
        time_of_day: "10:26:42",
        hour: "2026-10-01T00:00:00Z",
        never: null,
      },
    ]);
    expect(reportToCsv(result)).toBe(
      "at_tz,at,day,time_of_day,hour,never\r\n2026-11-27T10:26:42Z,2026-11-27T10:26:42Z,2026-11-27,10:26:42,2026-10-01T00:00:00Z,\r\n",
    );
  });
});
