import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Internal from "../src/internal.js";
import { accountHour, gateway, HOUR, OCT_1, vm } from "./helpers/warehouse.js";

// The changeability check of the house, repeated on every run: in a scratch copy of src/, a new
// measured per-VM field (the machine record's cpuMinutes) is carried to a new unit (CPUH, CPU
// hours used) by editing the files a maintainer would edit, and no other. The copy must type-check
// and bill the new unit on every road to the figure computed by hand. A change that makes the
// facts listed again somewhere else (a hand-kept column list, a positional row, a copy written
// out fact by fact) fails here: the copy does not compile, or a road bills CPUH as 0.

const REPO = join(import.meta.dirname, "..");
/** The most source files a new per-VM fact carried to a new unit may touch (issue 34: at most 4). */
const MOST_FILES = 4;

/** The edits of the change, file by file: each a text of the file and what replaces it. */
const CHANGE: Record<string, [string, string][]> = {
  "load/vmFacts.ts": [
    [
      "} as const satisfies Record<string, VmFactDef>;",
      `  /** CPU-minutes used in the hour. */
  cpuMinutes: { column: "cpu_minutes", kind: "f64", from: { machine: "cpuMinutes" } },
} as const satisfies Record<string, VmFactDef>;`,
    ],
  ],
  "billing/unitCatalog.ts": [
    ['"WU", "PIU"] as const;', '"WU", "PIU", "CPUH"] as const;'],
    [
      "} as const satisfies Record<UnitName, UnitDef>;",
      `  CPUH: {
    rule: { kind: "sum", perVm: (vm) => vm.cpuMinutes / 60 },
    label: () => "CPU hours used",
    definition: () => "CPUH: one hour of a virtual CPU busy.",
    focus: { ...compute, name: "Compute", meter: "CPU Hours", what: () => "CPU hours used" },
  },
} as const satisfies Record<UnitName, UnitDef>;`,
    ],
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

// Account 7, three hours: machine 1 uses 60, 90 then 120 CPU-minutes, machine 2 30 each hour,
// machine 3 (halted: the published units bill every status) 45. CPUH: (60 + 90 + 120 + 3 × 30 +
// 3 × 45) / 60 = 8.25, of which machine 1's 4.5, machine 2's 1.5 and machine 3's 2.25.
const HOURS = [0, 1, 2].map((h) =>
  accountHour(7, OCT_1 + h * HOUR, {
    11: [
      gateway([]),
      vm(1, { vcpus: 2, cpuMinutes: 60 + 30 * h }),
      vm(2, { vcpus: 1, cpuMinutes: 30 }),
      vm(3, { vcpus: 1, cpuMinutes: 45, status: "HALTED" }),
    ],
  }),
);
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
  for (const [file, edits] of Object.entries(CHANGE)) {
    const path = join(scratch, "src", file);
    let text = await readFile(path, "utf8");
    for (const [from, to] of edits) {
      expect(
        text.split(from),
        `${file} holds "${from}" once: mend this test's CHANGE to the file as it is`,
      ).toHaveLength(2);
      text = text.replace(from, to);
    }
    await writeFile(path, text);
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

describe("a new measured per-VM field carried to a new unit", () => {
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

  it("bills the new unit on every road: files as they stream and read again by hour, a warehouse's grouped roads, stored facts and rows", async () => {
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
            const cpuh = (level: string, id?: number) => {
              const line = billed.report.lines.find(
                (l) => l.level === level && (id === undefined || ("machineId" in l && l.machineId === id)),
              )!;
              return (line.quantities as Record<string, number | null>).CPUH;
            };
            const where = `${road}, ${billed.road.warehouse ?? billed.road.source}`;
            expect(cpuh(period.accountId === undefined ? "environment" : "account"), where).toBeCloseTo(8.25, 12);
            if (levels === undefined) {
              expect(cpuh("machine", 1), where).toBeCloseTo(4.5, 12);
              expect(cpuh("machine", 2), where).toBeCloseTo(1.5, 12);
              expect(cpuh("machine", 3), where).toBeCloseTo(2.25, 12);
            }
            if (billed.hourly) {
              let hours = 0;
              for await (const batch of billed.hourly.lines(["machine"]))
                for (const line of batch) hours += (line.quantities as Record<string, number>).CPUH!;
              expect(hours, `${where}, hourly`).toBeCloseTo(8.25, 12);
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
