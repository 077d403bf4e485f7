import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BadInputError,
  ConflictError,
  ingest,
  openWarehouse,
  writeDataset,
  type BadFileError,
  type Warehouse,
} from "../../src/internal.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { runCli as cli } from "../helpers/runCli.js";
import { rawZip } from "../input/zipFixtures.js";

// docs/cli.md: a file that cannot be read or decoded is bad on its own and never makes a conflict;
// only decodable files that differ conflict. With --skip-bad, a bad file beside a good copy of
// its account-hour leaves the good copy in. Real generated files, every load path.

const START = 1790812800; // 2026-10-01T00:00Z
const HOUR = START + 3600;
const DATA = { accounts: 1, spaces: 2, machines: 2, hours: 3, start: START, seed: 11 };

let dir: string;
let tree: string; // the good data
let split: string; // the same hours as per-cloud-space files
/** A second tree holding only a damaged copy of one file of `root`'s hour HOUR. */
const damagedCopy = (
  root: string,
  name: string,
  damage: (bytes: Buffer) => Uint8Array,
  file = "account_capnp.bin",
): string => {
  const out = join(dir, name);
  const path = join(hourPath(1, HOUR), file);
  mkdirSync(join(out, dirname(path)), { recursive: true });
  writeFileSync(join(out, path), damage(readFileSync(join(root, path))));
  return out;
};
const truncate = (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length / 2));
const garbage = (bytes: Buffer) => new Uint8Array(bytes.length).fill(0xff);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-bad-copies-"));
  tree = join(dir, "tree");
  split = join(dir, "split");
  await writeDataset({ ...DATA, out: tree });
  await writeDataset({ ...DATA, out: split, cloudSpaceFiles: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a user compares: account-hours and machine-hours loaded, per hour. */
async function loaded(w: Warehouse): Promise<unknown> {
  return (
    await w.connection.runAndReadAll(
      "SELECT hour_epoch, count(*)::INT AS machines, sum(mem_mb) AS mem FROM machines GROUP BY ALL ORDER BY ALL",
    )
  ).getRowObjectsJson();
}
async function reference(inputs: string[]): Promise<unknown> {
  const w = await openWarehouse(inputs);
  try {
    return await loaded(w);
  } finally {
    w.close();
  }
}
const errorsOf = async (load: Promise<unknown>): Promise<(BadFileError | ConflictError)[]> => {
  const error = await load.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BadInputError);
  return (error as BadInputError).errors as (BadFileError | ConflictError)[];
};

describe("a damaged copy beside a good one", () => {
  for (const [kind, damage, code] of [
    ["truncated", truncate, "CAPNP_TRUNCATED"],
    ["garbage", garbage, "CAPNP_SEGMENT_TABLE"],
  ] as const) {
    for (const workers of [0, 1]) {
      it(`a ${kind} copy is bad on its own (${code}), never a conflict, and --skip-bad keeps the good hour (${workers ? "worker" : "inline"} decoding)`, async () => {
        const bad = damagedCopy(tree, `${kind}-${workers}`, damage);
        const badFile = join(bad, hourPath(1, HOUR), "account_capnp.bin");
        for (const inputs of [
          [tree, bad],
          [bad, tree],
        ]) {
          const errors = await errorsOf(openWarehouse(inputs, { workers }));
          expect(errors.map((e) => [e.code, e.message.split(":")[0]])).toEqual([[code, badFile]]);
          expect(errors.some((e) => e instanceof ConflictError)).toBe(false);
          const w = await openWarehouse(inputs, { workers, skipBad: true });
          try {
            expect(w.load.skipped).toEqual([{ file: badFile, code, reason: expect.any(String) }]);
            expect(w.load.accountHours).toBe(DATA.hours);
            expect(await loaded(w)).toEqual(await reference([tree]));
          } finally {
            w.close();
          }
        }
      });
    }
  }

  it("two decodable files that differ still conflict, and a damaged third copy is named apart from them", async () => {
    const other = join(dir, "other");
    await writeDataset({ ...DATA, out: other, seed: 12 });
    const bad = damagedCopy(tree, "third", truncate);
    const errors = await errorsOf(openWarehouse([tree, other, bad]));
    const path = join(hourPath(1, HOUR), "account_capnp.bin");
    const conflicts = errors.filter((e): e is ConflictError => e instanceof ConflictError && e.hourEpoch === HOUR);
    expect(conflicts.map((e) => e.files)).toEqual([[join(other, path), join(tree, path)]]); // read in name order
    expect(errors.filter((e) => e.code === "CAPNP_TRUNCATED").map((e) => (e as BadFileError).file)).toEqual([
      join(bad, path),
    ]);
  });

  it("a damaged copy of one cloud space's file leaves the split hour whole; a cloud space with only bad files rejects the hour, named", async () => {
    const hourDir = join(split, hourPath(1, HOUR));
    const [first, second] = readdirSync(hourDir).sort();
    const bad = damagedCopy(split, "split-bad", truncate, first);
    const w = await openWarehouse([split, bad], { skipBad: true });
    try {
      expect(w.load.skipped.map((s) => [s.file, s.code])).toEqual([
        [join(bad, hourPath(1, HOUR), first!), "CAPNP_TRUNCATED"],
      ]);
      expect(await loaded(w)).toEqual(await reference([split]));
    } finally {
      w.close();
    }
    // the second cloud space's only file damaged, the first one's with an identical copy elsewhere
    const broken = join(dir, "split-broken");
    cpSync(split, broken, { recursive: true });
    writeFileSync(join(broken, hourPath(1, HOUR), second!), truncate(readFileSync(join(hourDir, second!))));
    const copy = damagedCopy(split, "split-copy", (b) => b, first);
    const errors = await errorsOf(openWarehouse([broken, copy]));
    expect(errors.map((e) => [e.code, (e as BadFileError).file])).toEqual([
      ["CAPNP_TRUNCATED", join(broken, hourPath(1, HOUR), second!)],
    ]);
    const skipping = await openWarehouse([broken, copy], { skipBad: true });
    try {
      expect(skipping.load.skipped.map((s) => [s.file, s.code])).toEqual([
        [join(broken, hourPath(1, HOUR), first!), "CAPNP_TRUNCATED"],
        [join(broken, hourPath(1, HOUR), second!), "CAPNP_TRUNCATED"],
      ]);
      expect(skipping.load.skipped[0]!.reason).toBe(
        `not loaded: ${join(broken, hourPath(1, HOUR), second!)} of the same account-hour is unreadable`,
      );
      expect(skipping.load.accountHours).toBe(DATA.hours - 1);
    } finally {
      skipping.close();
    }
    // one cloud space's two copies both damaged, differently: each bad on its own, the hour not loaded
    const garbled = damagedCopy(split, "split-garbled", garbage, second);
    const both = await openWarehouse([broken, garbled], { skipBad: true });
    try {
      expect(both.load.skipped.map((s) => [s.file, s.code])).toEqual([
        [join(broken, hourPath(1, HOUR), second!), "CAPNP_TRUNCATED"],
        [join(garbled, hourPath(1, HOUR), second!), "CAPNP_SEGMENT_TABLE"],
        [join(broken, hourPath(1, HOUR), first!), "CAPNP_TRUNCATED"],
      ]);
      expect(both.load.accountHours).toBe(DATA.hours - 1);
    } finally {
      both.close();
    }
  });
});

describe("a bad zip entry of a split hour", () => {
  /** The split tree as a zip, the entry of the first cloud space of hour HOUR with a wrong CRC. */
  const zipWithBadEntry = (): { zip: string; bad: string; other: string } => {
    const files = readdirSync(split, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".bin"))
      .sort();
    const [first, second] = readdirSync(join(split, hourPath(1, HOUR))).sort();
    const badName = join(hourPath(1, HOUR), first!);
    const zip = join(dir, "split-crc.zip");
    writeFileSync(
      zip,
      rawZip(
        files.map((name) => ({ name, data: readFileSync(join(split, name)), crc: name === badName ? 1 : undefined })),
      ),
    );
    return { zip, bad: `${zip}!${badName}`, other: `${zip}!${join(hourPath(1, HOUR), second!)}` };
  };

  it("rejects the hour, naming the entry, instead of loading it without that cloud space; a good copy elsewhere fills it", async () => {
    const { zip, bad, other } = zipWithBadEntry();
    const errors = await errorsOf(openWarehouse([zip]));
    expect(errors.map((e) => [e.code, (e as BadFileError).file])).toEqual([["ARCHIVE_CHECKSUM", bad]]);
    const w = await openWarehouse([zip], { skipBad: true });
    try {
      expect(
        w.load.skipped.map((s) => [s.file, s.code, s.reason.startsWith("not loaded") ? "not loaded" : "own"]),
      ).toEqual([
        [bad, "ARCHIVE_CHECKSUM", "own"],
        [other, "ARCHIVE_CHECKSUM", "not loaded"],
      ]);
      expect(w.load.accountHours).toBe(DATA.hours - 1);
      expect(
        (
          await w.connection.runAndReadAll(`SELECT count(*)::INT AS n FROM machines WHERE hour_epoch = ${HOUR}`)
        ).getRowObjectsJson(),
      ).toEqual([{ n: 0 }]);
    } finally {
      w.close();
    }
    const copy = damagedCopy(split, "split-good-copy", (b) => b, bad.slice(bad.lastIndexOf("/") + 1));
    const filled = await openWarehouse([zip, copy], { skipBad: true });
    try {
      expect(filled.load.skipped.map((s) => [s.file, s.code])).toEqual([[bad, "ARCHIVE_CHECKSUM"]]);
      expect(await loaded(filled)).toEqual(await reference([split]));
    } finally {
      filled.close();
    }
  });
});

describe("ingest: a damaged copy against an already ingested hour", () => {
  it("is bad on its own (not a conflict with the loaded file); --skip-bad records it rejected with its code and keeps the data", async () => {
    const db = join(dir, "ingested.duckdb");
    await ingest([tree], { db });
    const bad = damagedCopy(tree, "late", truncate);
    const badFile = join(bad, hourPath(1, HOUR), "account_capnp.bin");
    const errors = await errorsOf(ingest([bad], { db }));
    expect(errors.map((e) => [e.code, e.message.split(":")[0]])).toEqual([["CAPNP_TRUNCATED", badFile]]);
    const report = await ingest([bad], { db, skipBad: true, replace: true });
    expect(report.skipped).toEqual([{ file: badFile, code: "CAPNP_TRUNCATED", reason: expect.any(String) }]);
    expect(report.replacedHours).toBe(0);
    const w = await openWarehouse({ db });
    try {
      expect(await loaded(w)).toEqual(await reference([tree]));
      expect(
        (
          await w.connection.runAndReadAll("SELECT source, status, code FROM files WHERE status <> 'loaded'")
        ).getRowObjectsJson(),
      ).toEqual([{ source: badFile, status: "rejected", code: "CAPNP_TRUNCATED" }]);
    } finally {
      w.close();
    }
  });

  it("in one ingest beside the good copy, the good copy is loaded", async () => {
    const db = join(dir, "together.duckdb");
    const bad = damagedCopy(tree, "together", garbage);
    const report = await ingest([bad, tree], { db, skipBad: true });
    expect(report.skipped.map((s) => s.code)).toEqual(["CAPNP_SEGMENT_TABLE"]);
    expect(report.totalAccountHours).toBe(DATA.hours);
  });
});

describe("a damaged copy beside a good one, through the CLI", () => {
  const period = ["--start", "2026-10-01T00:00Z", "--end", "2026-10-01T03:00Z"];
  let bad: string;
  let badFile: string;
  beforeAll(() => {
    bad = damagedCopy(tree, "cli", truncate);
    badFile = join(bad, hourPath(1, HOUR), "account_capnp.bin");
  });

  it("billing exits 3 naming only the damaged file, and with --skip-bad bills exactly the good data", async () => {
    const strict = await cli(["billing", tree, bad, ...period, "--format", "json"]);
    expect(strict.code).toBe(3);
    expect(strict.stderr).toContain(`${badFile}: `);
    expect(strict.stderr).not.toContain("CONFLICT");
    expect(strict.stderr).not.toContain("different files");
    const skipping = await cli([
      "billing",
      tree,
      bad,
      ...period,
      "--account-id",
      "1",
      "--format",
      "json",
      "--skip-bad",
    ]);
    const good = await cli(["billing", tree, ...period, "--account-id", "1", "--format", "json"]);
    expect(skipping.code).toBe(0);
    expect(skipping.stderr).toMatch(new RegExp(`skipped 1 bad file:\\n.*  ${badFile}: .*\\[CAPNP_TRUNCATED\\]`));
    expect(skipping.stdout).toBe(good.stdout);
  });

  it("check lists the damaged file as unreadable, not as a conflict, with no hour missing", async () => {
    const run = await cli(["check", tree, bad]);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain("conflicts (different files for one account-hour, none of them loaded): 0\n");
    expect(run.stdout).toMatch(new RegExp(`unreadable files: 1\\n  ${badFile}: .* \\[CAPNP_TRUNCATED\\]\\n`));
    expect(run.stdout).toContain(
      `account 1: [2026-10-01T00:00:00Z, 2026-10-01T03:00:00Z) ${DATA.hours} hours: ${DATA.hours} held, 0 missing`,
    );
  });

  it("stats --skip-bad gives the series of the good data", async () => {
    const args = [
      "--id",
      "1",
      "--from",
      "2026-10-01T00:00Z",
      "--till",
      "2026-10-01T03:00Z",
      "--include",
      "cpu",
      "--include",
      "network",
    ];
    const skipping = await cli(["stats", "account", ...args, tree, bad, "--skip-bad"]);
    const good = await cli(["stats", "account", ...args, tree]);
    expect([skipping.code, good.code]).toEqual([0, 0]);
    expect(skipping.stdout).toBe(good.stdout);
    expect((JSON.parse(good.stdout) as { time: number[] }).time).toEqual([START, START + 3600, START + 7200]);
  });
});
