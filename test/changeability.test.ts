import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Internal from "../src/internal.js";
import { accountHour, disk, gateway, HOUR, nic, OCT_1, vm } from "./helpers/warehouse.js";

// The changeability check of the house, repeated on every run: in a scratch copy of src/, three new
// per-VM facts, each of one kind the list carries (a field of the machine record, a sum over the
// machine's disks, a sum over its NICs), are carried to three new units by adding entries to the
// lists a maintainer would add to (`VM_FACTS`; `UNIT_NAMES` and `UNIT_CATALOG`), and nothing else.
// The change is data: each entry is inserted into its list found by the compiler's syntax tree,
// not by matching the text around it. The copy must type-check and bill the new units on every
// road to the figures computed by hand. A change that makes the facts listed again somewhere else
// (a hand-kept column list, a positional row, a copy or a sum written out fact by fact) fails here:
// the copy does not compile, or a road bills a new unit as 0 or NaN.

const REPO = join(import.meta.dirname, "..");
/** The most source files a new per-VM fact carried to a new unit may touch (issue 34: at most 4). */
const MOST_FILES = 4;

/** The new facts, as entries of `VM_FACTS` (load/vmFacts.ts): name → definition. */
const NEW_FACTS: Record<string, string> = {
  // CPU-minutes used in the hour: a field of the machine record
  cpuMinutes: `{ column: "cpu_minutes", kind: "f64", from: { machine: "cpuMinutes" } }`,
  // Σ of the disks' maximum read IOPS: a sum over disks, of the one field it names
  readIopsMax: `{ column: "read_iops_max", kind: "f64", from: overDisks(["iopsReadMax"], (disk) => disk.iopsReadMax) }`,
  // its NICs of every type: a sum over NICs
  allNics: `{ column: "all_nics", kind: "i32", from: { nics: () => 1 } }`,
};

/** The new units, as entries of `UNIT_NAMES` and `UNIT_CATALOG` (billing/unitCatalog.ts): name → definition. */
const NEW_UNITS: Record<string, string> = {
  CPUH: `{
    rule: { kind: "sum", perVm: (vm) => vm.cpuMinutes / 60 },
    label: () => "CPU hours used",
    definition: () => "CPUH: one hour of a virtual CPU busy.",
    focus: { ...compute, name: "Compute", meter: "CPU Hours", what: () => "CPU hours used" },
  }`,
  RIOU: `{
    rule: { kind: "sum", perVm: (vm) => vm.readIopsMax / 100 },
    label: () => "Read IOPS units",
    definition: () => "RIOU: 100 IOPS of the disks' maximum read rate.",
    focus: { ...storage, name: "Block storage reads", meter: "Read IOPS", what: () => "read IOPS units" },
  }`,
  NICU: `{
    rule: { kind: "sum", perVm: (vm) => vm.allNics },
    label: () => "Network interfaces",
    definition: () => "NICU: one network interface of any type.",
    focus: { ...compute, name: "Compute", meter: "Network Interfaces", what: () => "network interfaces" },
  }`,
};

/** The object or array literal that `const name` of `file` is (through `as const` and `satisfies`). */
function literalOf(file: ts.SourceFile, name: string): ts.ObjectLiteralExpression | ts.ArrayLiteralExpression {
  let found: ts.Expression | undefined;
  file.forEachChild(function visit(node) {
    if (ts.isVariableDeclaration(node) && node.name.getText(file) === name) found = node.initializer;
    else node.forEachChild(visit);
  });
  while (found !== undefined && (ts.isAsExpression(found) || ts.isSatisfiesExpression(found))) found = found.expression;
  if (found === undefined || !(ts.isObjectLiteralExpression(found) || ts.isArrayLiteralExpression(found)))
    throw new Error(`${file.fileName} has no literal const ${name}: mend this test to the list as it is`);
  return found;
}

/** `text` with `entries` added at the end of the literal lists named (`[list, entries]`), each after its last element. */
function withEntries(path: string, text: string, lists: [string, string[]][]): string {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const inserts = lists.map(([name, entries]) => {
    const literal = literalOf(file, name);
    const elements: ts.NodeArray<ts.Node> = ts.isArrayLiteralExpression(literal)
      ? literal.elements
      : literal.properties;
    return { at: elements.at(-1)!.end, text: entries.map((e) => `, ${e}`).join("") };
  });
  for (const { at, text: added } of inserts.sort((a, b) => b.at - a.at))
    text = text.slice(0, at) + added + text.slice(at);
  return text;
}

/** The change, file by file: the lists each gets new entries in. */
const CHANGE: Record<string, [string, string[]][]> = {
  "load/vmFacts.ts": [["VM_FACTS", Object.entries(NEW_FACTS).map(([name, def]) => `${name}: ${def}`)]],
  "billing/unitCatalog.ts": [
    ["UNIT_NAMES", Object.keys(NEW_UNITS).map((name) => JSON.stringify(name))],
    ["UNIT_CATALOG", Object.entries(NEW_UNITS).map(([name, def]) => `${name}: ${def}`)],
  ],
};

/** The SHA-256 of every file under `dir`, by path relative to it. */
async function hashes(dir: string): Promise<Map<string, string>> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  const out = new Map<string, string>();
  for (const e of files)
    out.set(
      relative(dir, join(e.parentPath, e.name)),
      createHash("sha256")
        .update(await readFile(join(e.parentPath, e.name)))
        .digest("hex"),
    );
  return out;
}

let scratch: string;
let typeCheck: { status: number | null; output: string };
let changed: typeof Internal;

// Account 7, three hours (h = 0, 1, 2), cloud space 11 with a gateway of one external NIC (a gateway's
// NICs are no VM's):
// - machine 1 uses 60, 90 then 120 CPU-minutes, has a disk of maximum read IOPS 100, 150 then 200,
//   and two NICs (one external, one internal);
// - machine 2 uses 30 CPU-minutes each hour, has two disks of maximum read IOPS 40 and 20 and one internal NIC;
// - machine 3 (halted: the published units bill every status) uses 45, has a disk of 30 and no NIC.
// CPUH: (60 + 90 + 120 + 3 × 30 + 3 × 45) / 60 = 8.25, of which machine 1's 270 / 60 = 4.5, machine 2's
// 90 / 60 = 1.5 and machine 3's 135 / 60 = 2.25.
// RIOU: Σ maximum read IOPS / 100: machine 1 (100 + 150 + 200) / 100 = 4.5, machine 2 3 × (40 + 20) / 100 = 1.8,
// machine 3 3 × 30 / 100 = 0.9; in all 7.2.
// NICU: machine 1 2 × 3 = 6, machine 2 1 × 3 = 3, machine 3 0; in all 9.
const HOURS = [0, 1, 2].map((h) =>
  accountHour(7, OCT_1 + h * HOUR, {
    11: [
      gateway([nic("external", 1000, 1000)]),
      vm(1, {
        vcpus: 2,
        cpuMinutes: 60 + 30 * h,
        disks: [{ ...disk(1, 10), iopsReadMax: 100 + 50 * h }],
        networks: [nic("external", 10, 10, 1), nic("internal", 50, 50, 2)],
      }),
      vm(2, {
        vcpus: 1,
        cpuMinutes: 30,
        disks: [
          { ...disk(2, 20), iopsReadMax: 40 },
          { ...disk(3, 20), iopsReadMax: 20 },
        ],
        networks: [nic("internal", 5, 5, 3)],
      }),
      vm(3, { vcpus: 1, cpuMinutes: 45, status: "HALTED", disks: [{ ...disk(4, 30), iopsReadMax: 30 }] }),
    ],
  }),
);
/** Each new unit's figure for the period: of the account (or the environment), and of machines 1, 2 and 3. */
const EXPECTED: Record<string, [number, number, number, number]> = {
  CPUH: [8.25, 4.5, 1.5, 2.25],
  RIOU: [7.2, 4.5, 1.8, 0.9],
  NICU: [9, 6, 3, 0],
};
const PERIOD: Internal.Period = { start: OCT_1, end: OCT_1 + 3 * HOUR };

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "cloudunits-changeability-"));
  await cp(join(REPO, "src"), join(scratch, "src"), { recursive: true });
  for (const name of ["package.json", "node_modules"]) await symlink(join(REPO, name), join(scratch, name));
  await writeFile(
    join(scratch, "tsconfig.json"),
    JSON.stringify({
      extends: join(REPO, "tsconfig.json"),
      compilerOptions: { noEmit: true, rootDir: "." },
      include: ["src"],
    }),
  );
  for (const [file, lists] of Object.entries(CHANGE)) {
    const path = join(scratch, "src", file);
    await writeFile(path, withEntries(path, await readFile(path, "utf8"), lists));
  }
  const tsc = spawnSync(
    process.execPath,
    [createRequire(import.meta.url).resolve("typescript/bin/tsc"), "-p", scratch],
    { encoding: "utf8" },
  );
  typeCheck = { status: tsc.status, output: `${tsc.stdout}${tsc.stderr}` };
  changed = (await import(pathToFileURL(join(scratch, "src/internal.ts")).href)) as typeof Internal;
  const tree = join(scratch, "hours");
  for (const hour of HOURS) {
    const dir = join(tree, changed.hourPath(hour.accountId, hour.hourEpoch));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "account_capnp.bin"), changed.encodeAccount(hour.account));
  }
}, 240_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("new per-VM facts (a machine field, a sum over disks, a sum over NICs) carried to new units", () => {
  it(`touches at most ${MOST_FILES} source files: ${Object.keys(CHANGE)
    .map((f) => `src/${f}`)
    .join(", ")}`, async () => {
    const before = await hashes(join(REPO, "src"));
    const after = await hashes(join(scratch, "src"));
    const touched = [...after]
      .filter(([file, hash]) => before.get(file) !== hash)
      .map(([file]) => file)
      .sort();
    expect(touched).toEqual(Object.keys(CHANGE).sort());
    expect(touched.length).toBeLessThanOrEqual(MOST_FILES);
  });

  it("type-checks with no other file changed", () => {
    expect(typeCheck.output).toBe("");
    expect(typeCheck.status).toBe(0);
  });

  it("bills the new units on every road: files as they stream and read again by hour, a warehouse's grouped roads, stored facts and rows", async () => {
    const files = [join(scratch, "hours")];
    const warehouse = await changed.openWarehouse(files, { workers: 0 });
    const rows = await changed.openWarehouse(files, {
      workers: 0,
      tables: ["account_hours", "cloudspaces", "machines", "gateways", "disks", "nics"],
    });
    try {
      const sources: [string, Internal.BillSource, Internal.BillProduce][] = [
        ["files as they stream", files, {}],
        ["files read again by hour", files, { hourly: true }],
        ["a warehouse", { connection: warehouse.connection }, {}],
        ["a warehouse's rows without facts", { connection: rows.connection }, {}],
      ];
      const roads = new Set<string>();
      for (const [road, source, produce] of sources) {
        // each asks a warehouse for another road: every level, the environment alone, it and the accounts, one account, and
        // every level with a NIC value that is no power of two of bytes (the grouped levels refuse it: the stored facts answer)
        const asks: [Internal.Period, Internal.Level[] | undefined, Partial<Internal.Units>][] = [
          [PERIOD, undefined, {}],
          [PERIOD, ["environment"], {}],
          [PERIOD, ["environment", "account"], {}],
          [{ ...PERIOD, accountId: 7 }, undefined, {}],
          [PERIOD, undefined, { nicBytesPerValue: 3 }],
        ];
        for (const [period, levels, units] of asks) {
          const rules = { units: { ...changed.DEFAULT_UNITS, ...units } };
          const billed = await changed.bill({
            source,
            period,
            rules,
            produce: { ...produce, levels },
            reading: { workers: 0 },
          });
          try {
            roads.add(billed.road.source).add(billed.road.warehouse ?? "files");
            const quantity = (unit: string, level: string, id?: number) => {
              const line = billed.report.lines.find(
                (l) => l.level === level && (id === undefined || ("machineId" in l && l.machineId === id)),
              )!;
              return (line.quantities as Record<string, number | null>)[unit];
            };
            const where = `${road}, ${billed.road.warehouse ?? billed.road.source}`;
            for (const [unit, [total, ...machines]] of Object.entries(EXPECTED)) {
              const top = period.accountId === undefined ? "environment" : "account";
              expect(quantity(unit, top), `${unit}, ${where}`).toBeCloseTo(total, 12);
              if (levels === undefined)
                machines.forEach((figure, m) =>
                  expect(quantity(unit, "machine", m + 1), `${unit} of machine ${m + 1}, ${where}`).toBeCloseTo(
                    figure,
                    12,
                  ),
                );
            }
            if (billed.hourly) {
              const hours: Record<string, number> = { CPUH: 0, RIOU: 0, NICU: 0 };
              for await (const batch of billed.hourly.lines(["machine"]))
                for (const line of batch)
                  for (const unit of Object.keys(hours))
                    hours[unit]! += (line.quantities as Record<string, number>)[unit]!;
              for (const [unit, [total]] of Object.entries(EXPECTED))
                expect(hours[unit], `${unit}, ${where}, hourly`).toBeCloseTo(total, 12);
            }
          } finally {
            billed.close();
          }
        }
      }
      expect([...roads].sort()).toEqual([
        "files",
        "files read again by hour",
        "grouped account",
        "grouped accounts",
        "grouped environment",
        "grouped levels",
        "rows",
        "stored facts",
        "warehouse",
      ]);
    } finally {
      warehouse.close();
      rows.close();
    }
  }, 120_000);
});
