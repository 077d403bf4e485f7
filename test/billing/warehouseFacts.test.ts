import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dayWindows, rowFacts, storedFacts, warehouseFacts } from "../../src/billing/warehouseFacts.js";
import type { AccountHourFacts } from "../../src/load/machineFacts.js";
import { generateHours, openWarehouse } from "../../src/internal.js";
import { encodeAccount } from "../../src/generate/encodeAccount.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { duckdbApi } from "../../src/base/duckdb.js";
import { runCli } from "../helpers/runCli.js";
import { HOUR, OCT_1, accountHour, gateway, memoryWarehouse, nic, vm } from "../helpers/warehouse.js";

/**
 * Texts of a file (status, image, machine type, NIC type, cloud-space state) are any bytes
 * the platform wrote, NUL and quotes included: billing from a warehouse reads them back as
 * they are, and no output that goes through DuckDB breaks on them.
 */
const ODD = ["RUN\0NING", "ubu'ntu\0 22.04", "it's", "\0", "'); DROP TABLE machines; --"];

function oddHour(hourEpoch: number) {
  return accountHour(
    2,
    hourEpoch,
    {
      5: [
        gateway([nic("PUB\0LIC", 10, 10)]),
        vm(9, { vcpus: 2, mem: 2048, status: ODD[0], imageName: ODD[1] }),
        vm(10, { vcpus: 4, mem: 1024, status: ODD[2], imageName: ODD[3], networks: [nic("ext'ernal\0", 1, 1)] }),
        vm(11, { type: "v\0m", status: ODD[4], imageName: ODD[4] }),
      ],
    },
    { 5: "DEPL'OYED\0" },
  );
}

describe("texts with NUL bytes and quotes", () => {
  it("billing from a warehouse reads every text back as the file had it", async () => {
    const connection = await memoryWarehouse([oddHour(OCT_1), oddHour(OCT_1 + HOUR)]);
    const seen: unknown[] = [];
    // the builder's facts are good until the next account-hour: read each as it comes
    for await (const f of warehouseFacts(
      connection,
      { start: OCT_1, end: OCT_1 + 2 * HOUR, accountId: 2 },
      "PUB\0LIC",
    )) {
      const of = (id: number) => f.machineId.indexOf(id);
      seen.push({
        hour: f.hourEpoch,
        texts: [
          f.status[of(9)],
          f.imageName[of(9)],
          f.status[of(10)],
          f.imageName[of(10)],
          f.type[of(11)],
          f.status[of(11)],
        ],
        states: [...f.cloudspaceStates],
        // the gateway's one NIC is of the external type "PUB\0LIC", matched as a whole text
        gateway: f.gateways.get(5),
      });
    }
    const expected = (hour: number) => ({
      hour,
      texts: [ODD[0], ODD[1], ODD[2], ODD[3], "v\0m", ODD[4]],
      states: ["DEPL'OYED\0"],
      gateway: { externalNics: 1, externalBytes: 20 },
    });
    expect(seen).toEqual([expected(OCT_1), expected(OCT_1 + HOUR)]);
  });

  describe("the CLI, from a warehouse and from files", () => {
    let root: string;
    let tree: string;
    let db: string;
    let prices: string;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "cloudunits-texts-"));
      tree = join(root, "tree");
      db = join(root, "w.duckdb");
      prices = join(root, "prices.json");
      await writeFile(prices, JSON.stringify({ currency: "EUR", prices: { CU: 0.05, SU: 10, TU: 0.1, NU: 5 } }));
      for (const hour of [OCT_1, OCT_1 + HOUR]) {
        const file = join(tree, hourPath(2, hour), "account_capnp.bin");
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, encodeAccount(oddHour(hour).account));
      }
      expect((await runCli(["ingest", tree, "--db", db])).code).toBe(0);
    }, 120_000);
    afterAll(() => rm(root, { recursive: true, force: true }));

    const period = ["--start", "2026-10-01T00:00:00Z", "--end", "2026-10-01T02:00:00Z"];
    // VMs 9 (2 vCPUs, 2 GB: 1 CU) and 10 (4 vCPUs: 2 CU), 2 hours; 11 is not a VM ("v\0m")
    const CU = 6;

    it("billing --db --skip-bad gives the warehouse's CU", async () => {
      const run = await runCli(["billing", "--db", db, ...period, "--skip-bad"]);
      expect(run.stderr).not.toMatch(/Parser Error|at async/);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).consumption.CU).toBe(CU);
      // a file's text is quoted in messages, never written raw (a NUL, a terminal's escape codes)
      expect(run.stderr).toContain('2 machine-hours of type "v\\u0000m" are not billed');
      expect(run.stderr).not.toContain("\0");
    }, 60_000);

    it("check quotes the unknown machine type", async () => {
      const run = await runCli(["check", "--db", db]);
      expect(run.stdout).toContain('  "v\\u0000m": 1 machine, 2 machine-hours');
      expect(run.stdout).not.toContain("\0");
    }, 60_000);

    it("billing --format csv --detail hourly has each machine's hours", async () => {
      const run = await runCli(["billing", "--db", db, ...period, "--format", "csv", "--detail", "hourly"]);
      expect(run.code).toBe(0);
      const machineRows = run.stdout.split("\n").filter((l) => l.startsWith("machine,"));
      expect(machineRows.map((l) => l.split(",")[3]).sort()).toEqual(["10", "10", "9", "9"]);
    }, 60_000);

    it("billing --format xlsx --hourly and focus-parquet write their files", async () => {
      const xlsx = join(root, "bill.xlsx");
      const parquet = join(root, "focus.parquet");
      const runs = [
        await runCli(["billing", tree, ...period, "--format", "xlsx", "--hourly", "--out", xlsx, "--prices", prices]),
        await runCli(["billing", tree, ...period, "--format", "focus-parquet", "--out", parquet, "--prices", prices]),
      ];
      expect(runs.map((r) => [r.code, r.stderr.match(/Parser Error|at async/)?.[0]])).toEqual([
        [0, undefined],
        [0, undefined],
      ]);
      expect((await readFile(xlsx)).subarray(0, 2).toString()).toBe("PK");
      const instance = await duckdbApi().DuckDBInstance.create(":memory:");
      const connection = await instance.connect();
      const rows = (
        await connection.runAndReadAll(
          "SELECT sum(ConsumedQuantity) AS cu FROM read_parquet($f) WHERE x_Level = 'account' AND x_Unit = 'CU'",
          { f: parquet },
        )
      ).getRowObjectsJS();
      expect(Number(rows[0]!.cu)).toBe(CU);
      connection.closeSync();
      instance.closeSync();
    }, 120_000);
  });
});

/** One account-hour's facts as plain values (the reader reuses its arrays from hour to hour). */
function factsOf(f: AccountHourFacts) {
  const n = f.machines;
  return {
    accountId: f.accountId,
    hourEpoch: f.hourEpoch,
    cloudspaceIds: [...f.cloudspaceIds],
    cloudspaceStates: [...f.cloudspaceStates],
    emptyCloudspaceRows: f.emptyCloudspaceRows,
    machines: [
      f.cloudspaceId,
      f.machineId,
      f.type,
      f.status,
      f.imageName,
      f.memMb,
      f.vcpus,
      f.sizeGb,
      f.iopsLimit,
      f.externalNics,
      f.externalBytes,
    ].map((a) => a.slice(0, n)),
    gateways: [...f.gateways].sort((a, b) => a[0] - b[0]),
  };
}

describe("the windows a warehouse is read in", () => {
  // days 1 and 3 of four held (day 2 not: the platform wrote none of it), billed from 00:30 on day 1 to day 4's end
  const DAY = 24 * HOUR;
  const start = OCT_1 + 1800;
  const end = OCT_1 + 4 * DAY;
  const hours = [...generateHours({ accounts: 2, spaces: 2, machines: 3, hours: 72, start: OCT_1, seed: 9 })].filter(
    (h) => h.hourEpoch < OCT_1 + DAY || h.hourEpoch >= OCT_1 + 2 * DAY,
  );
  let root: string;
  let warehouse: Awaited<ReturnType<typeof openWarehouse>>;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "cloudunits-windows-"));
    for (const hour of hours) {
      const file = join(root, hourPath(hour.accountId, hour.hourEpoch), "account_capnp.bin");
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, encodeAccount(hour.account));
    }
    warehouse = await openWarehouse([root]);
  });
  afterAll(async () => {
    warehouse?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("are whole days from the period's start, as many as fit the row limit, and no day without data", async () => {
    const period = { start: BigInt(start), end: BigInt(end), account: null };
    // one day each at the smallest limit, days counted from 00:30: day 1's hours, day 3's 00:00 (day 2 held none), day 3's
    // other hours; the fourth day, after the data, is not read
    expect(await dayWindows(warehouse.connection, period, "machine_facts", 1)).toEqual([
      [start, start + DAY],
      [start + DAY, start + 2 * DAY],
      [start + 2 * DAY, start + 3 * DAY],
    ]);
    // a small warehouse is read in one window, across the day it lacks
    expect(await dayWindows(warehouse.connection, period, "machine_facts")).toEqual([[start, start + 3 * DAY]]);
    // one account's rows alone; an account with none has no window
    expect(await dayWindows(warehouse.connection, { ...period, account: 2n }, "machines")).toEqual([
      [start, start + 3 * DAY],
    ]);
    expect(await dayWindows(warehouse.connection, { ...period, account: 9n }, "machines")).toEqual([]);
  });

  it("give the same facts, in the same order, one day at a time as all at once, stored or from the rows", async () => {
    const params = { start, end };
    const read = async (facts: AsyncGenerator<AccountHourFacts>) => {
      const out: ReturnType<typeof factsOf>[] = [];
      for await (const f of facts) out.push(factsOf(f));
      return out;
    };
    const whole = await read(storedFacts(warehouse.connection, params, "external"));
    // every held account-hour of the period, in hour order, then account
    expect(whole.map((f) => `${f.hourEpoch}/${f.accountId}`)).toEqual(
      hours.filter((h) => h.hourEpoch >= start).map((h) => `${h.hourEpoch}/${h.accountId}`),
    );
    expect(whole.some((f) => f.machines[0]!.length > 0)).toBe(true);
    expect(await read(storedFacts(warehouse.connection, params, "external", undefined, 1))).toEqual(whole);
    expect(await read(rowFacts(warehouse.connection, params, "external", 1))).toEqual(whole);
    expect(await read(rowFacts(warehouse.connection, params, "external"))).toEqual(whole);
  });

  it("give the listed accounts' facts alone, as the whole read has them, stored or from the rows", async () => {
    const read = async (facts: AsyncGenerator<AccountHourFacts>) => {
      const out: ReturnType<typeof factsOf>[] = [];
      for await (const f of facts) out.push(factsOf(f));
      return out;
    };
    const whole = await read(storedFacts(warehouse.connection, { start, end }, "external"));
    const second = whole.filter((f) => f.accountId === 2);
    expect(second.length).toBeGreaterThan(0);
    expect(
      await read(storedFacts(warehouse.connection, { start, end, accountIds: [2] }, "external", undefined, 1)),
    ).toEqual(second);
    expect(await read(rowFacts(warehouse.connection, { start, end, accountIds: [2, 9] }, "external"))).toEqual(second);
    expect(await read(warehouseFacts(warehouse.connection, { start, end, accountIds: [1, 2] }, "external"))).toEqual(
      whole,
    );
    expect(await read(warehouseFacts(warehouse.connection, { start, end, accountIds: [] }, "external"))).toEqual([]);
  });
});
