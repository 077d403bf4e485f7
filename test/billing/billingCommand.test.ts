import ExcelJS from "exceljs";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAccountHour } from "../../src/capnp/decodeAccountHour.js";
import type { DecodedAccountHour } from "../../src/capnp/records.js";
import { billingCommand } from "../../src/cli/commands/billing.js";
import { generateCommand } from "../../src/cli/commands/generate.js";
import { readAccountHours } from "../../src/input/readAccountHours.js";
import { inProcessCli } from "../helpers/inProcessCli.js";

let root: string;
let zip: string;
const decoded: DecodedAccountHour[] = [];
const START = Date.UTC(2026, 9, 1) / 1000;

/** Runs `cloudunits <args>` in process as src/cli/main.ts does; returns stdout, stderr (the error's message last) and the exit code. */
async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const run = await inProcessCli([generateCommand, billingCommand], args);
  return {
    stdout: run.stdout,
    stderr: run.error === undefined ? run.stderr : `${run.stderr}${(run.error as Error).message}`,
    code: run.code,
  };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-billing-cli-"));
  zip = join(root, "data.zip");
  const generated = await cli(
    "generate",
    "--out",
    zip,
    "--accounts",
    "2",
    "--spaces",
    "2",
    "--machines",
    "3",
    "--hours",
    "6",
    "--start",
    "2026-10-01T00:00Z",
    "--seed",
    "11",
    "--missing-hours",
    "2026-10-01T02:00Z",
  );
  expect(generated.code).toBe(0);
  for await (const hour of readAccountHours([zip])) decoded.push(decodeAccountHour(hour));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** docs/formulas.md computed directly from the decoded records, in plain JavaScript: the oracle. */
function oracle(accountId: number | undefined, start: number, end: number) {
  const env = { CU: 0, SU: 0, TU: 0, NU: 0 };
  const byHour = new Map<number, { mem: number; vcpus: number }>();
  const account = { CU: 0, SU: 0, TU: 0, NU: 0 };
  const machines = new Map<string, { CU: number; SU: number; TU: number }>();
  for (const h of decoded) {
    if (h.hourEpoch < start || h.hourEpoch >= end) continue;
    if (accountId !== undefined && h.accountId !== accountId) continue;
    let accMem = 0;
    let accVcpus = 0;
    for (const cs of h.account.cloudspaces) {
      for (const m of cs.machines) {
        for (const n of m.networks)
          if (n.type === "external") {
            env.NU += (n.tx + n.rx) / 1024 ** 4;
            account.NU += (n.tx + n.rx) / 1024 ** 4;
          }
        if (m.type !== "vm") continue;
        const cu = Math.max(m.mem / 1024 / 4, m.vcpus / 2);
        const su = m.disks.reduce((a, d) => a + d.size, 0) / 1024;
        const tu =
          m.disks.reduce((a, d) => {
            const c = d.configuredIops;
            return (
              a +
              (c === null
                ? 0
                : c.totalIopsSec > 0
                  ? c.totalIopsSec
                  : c.readIopsSec + c.writeIopsSec > 0
                    ? c.readIopsSec + c.writeIopsSec
                    : 0)
            );
          }, 0) / 400;
        accMem += m.mem;
        accVcpus += m.vcpus;
        env.SU += su;
        env.TU += tu;
        account.SU += su;
        account.TU += tu;
        const key = `${cs.cloudSpaceId}/${m.id}`;
        const prev = machines.get(key) ?? { CU: 0, SU: 0, TU: 0 };
        machines.set(key, { CU: prev.CU + cu, SU: prev.SU + su, TU: prev.TU + tu });
      }
    }
    account.CU += Math.max(accMem / 1024 / 4, accVcpus / 2);
    const e = byHour.get(h.hourEpoch) ?? { mem: 0, vcpus: 0 };
    byHour.set(h.hourEpoch, { mem: e.mem + accMem, vcpus: e.vcpus + accVcpus });
  }
  for (const { mem, vcpus } of byHour.values()) env.CU += Math.max(mem / 1024 / 4, vcpus / 2);
  return { env, account, machines };
}

describe("cloudunits billing, end to end on generated data", () => {
  it("--format json prints the environment's consumption, equal to docs/formulas.md computed independently", async () => {
    const { stdout, stderr, code } = await cli("billing", zip, "--start", "2026-10-01", "--end", "2026-10-01T06:00Z");
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    const expected = oracle(undefined, START, START + 6 * 3600).env;
    expect(Object.keys(result)).toEqual(["consumption"]);
    for (const u of ["CU", "SU", "TU", "NU"] as const) expect(result.consumption[u]).toBeCloseTo(expected[u], 9);
    expect(expected.CU).toBeGreaterThan(0);
    expect(stderr).toMatch(/warning: account \d+: 1 hour missing in .*2026-10-01T02:00:00Z/);
  });

  it("--account-id details cloud spaces and machines, equal to the oracle", async () => {
    const accountId = decoded[0]!.accountId;
    const { stdout, code } = await cli(
      "billing",
      zip,
      "--start",
      String(START),
      "--end",
      String(START + 6 * 3600),
      "--account-id",
      String(accountId),
    );
    expect(code).toBe(0);
    const { account } = JSON.parse(stdout);
    const expected = oracle(accountId, START, START + 6 * 3600);
    expect(account.id).toBe(accountId);
    for (const u of ["CU", "SU", "TU", "NU"] as const)
      expect(account.consumption[u]).toBeCloseTo(expected.account[u], 9);
    for (const [key, m] of expected.machines) {
      const [cs, id] = key.split("/");
      const got = account.cloudspaces[cs!].machines[id!];
      expect(Object.keys(got.consumption)).toEqual(["CU", "SU", "TU"]);
      for (const u of ["CU", "SU", "TU"] as const) expect(got.consumption[u]).toBeCloseTo(m[u], 9);
    }
  });

  it("--workers 2 prints the bill --workers 0 prints, byte for byte; --workers must be a whole number", async () => {
    const accountId = String(decoded[0]!.accountId);
    const args = [
      "billing",
      zip,
      "--start",
      "2026-10-01",
      "--end",
      "2026-10-01T06:00Z",
      "--account-id",
      accountId,
      "--all-units",
    ];
    const here = await cli(...args, "--workers", "0");
    const onWorkers = await cli(...args, "--workers", "2");
    expect(here.code).toBe(0);
    expect(JSON.parse(here.stdout).account.consumption.CU).toBeGreaterThan(0);
    expect(onWorkers.stdout).toBe(here.stdout);
    for (const bad of ["-1", "1.5", "65"]) {
      const refused = await cli(...args, `--workers=${bad}`);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`bad --workers ${bad}`);
    }
  });

  it("writes CSV, XLSX and FOCUS files and the warnings as JSON", async () => {
    const prices = join(root, "prices.json");
    await import("node:fs/promises").then((fs) =>
      fs.writeFile(prices, JSON.stringify({ currency: "EUR", prices: { CU: 0.01, SU: { perMonth: 40 } } })),
    );
    const period = ["--start", "2026-10-01", "--end", "2026-10-01T06:00Z"];
    const warnings = join(root, "warnings.json");
    expect(
      (
        await cli(
          "billing",
          zip,
          ...period,
          "--format",
          "csv",
          "--prices",
          prices,
          "--out",
          join(root, "b.csv"),
          "--warnings-json",
          warnings,
        )
      ).code,
    ).toBe(0);
    expect((await readFile(join(root, "b.csv"), "utf8")).split("\r\n")[0]).toMatch(/^level,account_id,/);
    const w = JSON.parse(await readFile(warnings, "utf8"));
    expect(w.period).toEqual({ start: "2026-10-01T00:00:00Z", end: "2026-10-01T06:00:00Z", accountId: null });
    expect(w.cuRollup).toBe("aggregate");
    expect(w.warnings.map((x: { code: string }) => x.code)).toEqual(["MISSING_HOURS", "MISSING_HOURS"]);
    expect(
      (await cli("billing", zip, ...period, "--format", "xlsx", "--prices", prices, "--out", join(root, "b.xlsx")))
        .code,
    ).toBe(0);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(root, "b.xlsx"));
    expect(workbook.getWorksheet("Summary")).toBeDefined();
    expect(
      (await cli("billing", zip, ...period, "--format", "focus-csv", "--prices", prices, "--out", join(root, "f.csv")))
        .code,
    ).toBe(0);
    expect(
      (await readFile(join(root, "f.csv"), "utf8")).startsWith(
        "AllocatedMethodDetails,AllocatedMethodId,AllocatedResourceId,AllocatedResourceName,AllocatedTags,BilledCost,BillingAccountId,",
      ),
    ).toBe(true);
  });

  it.each([
    { what: "a bad time", args: ["--start", "yesterday", "--end", "2026-10-02"], message: /bad --start/ },
    { what: "an empty period", args: ["--start", "2026-10-02", "--end", "2026-10-01"], message: /not after/ },
    {
      what: "FOCUS without prices",
      args: ["--start", "2026-10-01", "--end", "2026-10-02", "--format", "focus-csv"],
      message: /needs --prices/,
    },
    {
      what: "XLSX without --out",
      args: ["--start", "2026-10-01", "--end", "2026-10-02", "--format", "xlsx"],
      message: /give --out FILE/,
    },
    {
      what: "--per-period without FOCUS",
      args: ["--start", "2026-10-01", "--end", "2026-10-02", "--per-period"],
      message: /applies to --format focus/,
    },
    {
      what: "an unknown CU rollup",
      args: ["--start", "2026-10-01", "--end", "2026-10-02", "--cu-rollup", "max"],
      message: /cu-rollup/,
    },
    {
      what: "--month beside --start",
      args: ["--month", "2026-10", "--start", "2026-10-01"],
      message: /--month or --start\/--end, not both/,
    },
    { what: "a bad --month", args: ["--month", "2026-13"], message: /bad --month: "2026-13" \(use YYYY-MM/ },
    { what: "no period", args: [], message: /give the period: --start T --end T, or --month YYYY-MM/ },
    {
      what: "--hourly without XLSX",
      args: ["--month", "2026-10", "--hourly"],
      message: /--hourly applies to --format xlsx/,
    },
    {
      what: "--per-account without XLSX",
      args: ["--month", "2026-10", "--per-account"],
      message: /--per-account applies to --format xlsx/,
    },
  ])("exits 2 on $what", async ({ args, message }) => {
    const { code, stderr } = await cli("billing", zip, ...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it("--month 2026-10 is the half-open month, the same as --start 2026-10-01 --end 2026-11-01", async () => {
    const byMonth = await cli("billing", zip, "--month", "2026-10");
    const byDates = await cli("billing", zip, "--start", "2026-10-01", "--end", "2026-11-01");
    expect(byMonth.code).toBe(0);
    expect(JSON.parse(byMonth.stdout)).toEqual(JSON.parse(byDates.stdout));
    const september = await cli("billing", zip, "--month", "2026-09"); // [09-01, 10-01): not the hour of October 1st 00:00
    expect([september.code, september.stderr]).toEqual([3, expect.stringMatching(/^no hours held in 2026-09: /)]);
  });

  it("--format text prints the readable table, with amounts and the total amount due given prices", async () => {
    const prices = join(root, "text-prices.json");
    await import("node:fs/promises").then((fs) =>
      fs.writeFile(prices, JSON.stringify({ currency: "EUR", prices: { CU: 0.01 } })),
    );
    const { stdout, code } = await cli("billing", zip, "--month", "2026-10", "--format", "text", "--prices", prices);
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]).toBe("period [2026-10-01T00:00:00Z, 2026-11-01T00:00:00Z)");
    expect(lines[1]).toMatch(/^CU rule: aggregate/);
    expect(lines[3]).toMatch(/^level\s+id\s+name\s+hours\s+CU-hours\s+SU-hours\s+TU-hours\s+NU-TiB$/);
    expect(stdout).toMatch(/^level\s+id\s+name\s+CU\s+amount due \(EUR\)$/m);
    const accounts = lines.filter((l) => l.startsWith("account ") && / \d+\.\d\d$/.test(l));
    expect(accounts).toHaveLength(2);
    const due = accounts.map((l) => Number(l.trim().split(/\s+/).at(-1)));
    const total = /^total amount due: (\d+\.\d\d) EUR/m.exec(stdout)![1]!;
    expect((due[0]! * 100 + due[1]! * 100) / 100).toBeCloseTo(Number(total), 9);
  });

  it("--per-account writes the invoice pack into the --out directory", async () => {
    const prices = join(root, "pack-prices.json");
    await import("node:fs/promises").then((fs) =>
      fs.writeFile(prices, JSON.stringify({ currency: "EUR", prices: { CU: 0.01, NU: 3 } })),
    );
    const out = join(root, "invoices");
    const { code } = await cli(
      "billing",
      zip,
      "--month",
      "2026-10",
      "--prices",
      prices,
      "--format",
      "xlsx",
      "--per-account",
      "--out",
      out,
    );
    expect(code).toBe(0);
    const files = (await import("node:fs/promises").then((fs) => fs.readdir(out))).sort();
    const accounts = [...new Set(decoded.map((d) => d.accountId))].sort((a, b) => a - b);
    expect(files).toEqual([...accounts.map((a) => `account-${a}.xlsx`), "summary.xlsx"].sort());
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(out, `account-${accounts[0]}.xlsx`));
    expect(workbook.worksheets.map((w) => w.name)).toEqual(["Invoice", "Cloud spaces", "Machines"]); // what the customer reads; the checks are in summary.xlsx
  });

  it("byte-identical copies (the zip beside the same tree) are dropped silently: the same bill, nothing on stderr", async () => {
    const tree = join(root, "copy");
    expect(
      (
        await cli(
          "generate",
          "--out",
          tree,
          "--accounts",
          "2",
          "--spaces",
          "2",
          "--machines",
          "3",
          "--hours",
          "6",
          "--start",
          "2026-10-01T00:00Z",
          "--seed",
          "11",
          "--missing-hours",
          "2026-10-01T02:00Z",
        )
      ).code,
    ).toBe(0);
    const period = ["--start", "2026-10-01T03:00Z", "--end", "2026-10-01T06:00Z"]; // no missing hour in it: no warning of its own
    const alone = await cli("billing", zip, ...period);
    const twice = await cli("billing", zip, tree, ...period);
    expect([twice.code, twice.stderr]).toEqual([0, ""]);
    expect(twice.stdout).toBe(alone.stdout);
    expect(JSON.parse(twice.stdout).consumption.CU).toBeGreaterThan(0);
  });

  it("a period the data holds no hour of is refused (exit 3), naming the hours the data holds, never a bill of zeros", async () => {
    const { stdout, stderr, code } = await cli("billing", zip, "--month", "2026-09");
    expect([code, stdout]).toEqual([3, ""]);
    expect(stderr).toBe(
      "no hours held in 2026-09: the inputs hold none of it, so there is nothing to bill; " +
        "they hold [2026-10-01T00:00:00Z, 2026-10-01T06:00:00Z)",
    );
    const account = await cli(
      "billing",
      zip,
      "--start",
      "2027-01-01",
      "--end",
      "2027-01-02",
      "--account-id",
      "2",
      "--format",
      "csv",
    );
    expect([account.code, account.stdout]).toEqual([3, ""]);
    expect(account.stderr).toBe(
      "no hours held in [2027-01-01T00:00:00Z, 2027-01-02T00:00:00Z) for account 2: the inputs hold none of it, " +
        "so there is nothing to bill; they hold [2026-10-01T00:00:00Z, 2026-10-01T06:00:00Z)",
    );
  });

  it("an empty folder, or one of other files, holds no hour: refused (exit 3), as a stalled sync must not read as nothing to bill", async () => {
    const empty = join(root, "empty-folder");
    mkdirSync(join(empty, "pdfs"), { recursive: true });
    writeFileSync(join(empty, "pdfs", "statement.pdf"), "%PDF-1.7\n");
    const run = await cli("billing", empty, "--month", "2027-03", "--format", "text");
    expect([run.code, run.stdout]).toEqual([3, ""]);
    expect(run.stderr).toBe(
      "no hours held in 2027-03: the inputs hold none of it, so there is nothing to bill; they hold no hour at all",
    );
  });
});
