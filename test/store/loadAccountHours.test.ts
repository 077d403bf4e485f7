import type { DuckDBConnection } from "@duckdb/node-api";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryWarehouse } from "../helpers/warehouse.js";
import type { Account, DecodedAccountHour } from "../../src/capnp/records.js";
import { BadFileError, ConflictError } from "../../src/base/errors.js";
import type { AccountHour, Source } from "../../src/input/types.js";
import { loadAccountHours, type LoadRules } from "../../src/store/loadAccountHours.js";
import { Manifest } from "../../src/store/manifest.js";
import { stageHours } from "../../src/load/stageHours.js";

// A stand-in for the Cap'n Proto decoder: a file's bytes are the JSON of its Account,
// and the bytes "bad" are unreadable. The store's rules do not depend on the encoding.
const account = (accountId: number, memMb: number): Account => ({
  accountId,
  cloudspaces: [
    {
      cloudSpaceId: 1,
      accountId,
      state: "DEPLOYED",
      machines: [
        {
          id: 5,
          type: "vm",
          vcpus: 2,
          cpuMinutes: 30,
          mem: memMb,
          imageName: "Ubuntu",
          status: "RUNNING",
          disks: [],
          networks: [],
        },
      ],
    },
  ],
});
const file = (name: string, content: Account | "bad"): Source => ({
  name,
  root: "Account",
  packed: false,
  bytes: new TextEncoder().encode(content === "bad" ? "bad" : JSON.stringify(content)),
});
const hour = (accountId: number, hourEpoch: number, ...sources: Source[]): AccountHour => ({
  accountId,
  hourEpoch,
  sources,
});
const decode = (h: AccountHour): DecodedAccountHour => {
  const s = h.sources[0]!;
  const text = new TextDecoder().decode(s.bytes);
  if (text === "bad") throw new BadFileError("CAPNP_TRUNCATED", s.name, "segment 0 declares 9 words, has 0");
  const acc = JSON.parse(text) as Account;
  return { accountId: h.accountId, hourEpoch: h.hourEpoch, rootAccountId: acc.accountId, account: acc };
};
async function* iterate(hours: AccountHour[]): AsyncGenerator<AccountHour> {
  yield* hours;
}

let connection: DuckDBConnection;
beforeEach(async () => {
  connection = await memoryWarehouse([]);
});
afterEach(() => {
  connection.closeSync();
});

const load = async (hours: AccountHour[], rules: Partial<LoadRules> = {}, readerBad: BadFileError[] = []) =>
  loadAccountHours(connection, iterate(hours), await Manifest.read(connection), readerBad, {
    stager: () => ({
      inFlight: 1,
      stage: async (h, tables) => stageHours(h, tables, { decode }),
      close: async () => {},
    }),
    decode,
    ...rules,
  });
const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson();

describe("loading account-hours", () => {
  it("loads each account-hour once and drops a byte-identical copy found elsewhere, counting it", async () => {
    const outcome = await load([
      hour(
        7,
        3600,
        file("a.zip!7/1970/1/1/1/account_capnp.bin", account(7, 1024)),
        file("tree/7/1970/1/1/1/account_capnp.bin", account(7, 1024)),
      ),
      hour(7, 7200, file("tree/7/1970/1/1/2/account_capnp.bin", account(7, 2048))),
    ]);
    expect(outcome).toMatchObject({
      filesLoaded: 2,
      accountHours: 2,
      duplicates: ["tree/7/1970/1/1/1/account_capnp.bin"],
      skipped: [],
      errors: [],
    });
    expect(await rows("SELECT hour_epoch, mem_mb FROM machines ORDER BY hour_epoch")).toEqual([
      { hour_epoch: "3600", mem_mb: 1024 },
      { hour_epoch: "7200", mem_mb: 2048 },
    ]);
    expect(await rows("SELECT source, status, reason FROM files ORDER BY file_id")).toEqual([
      { source: "a.zip!7/1970/1/1/1/account_capnp.bin", status: "loaded", reason: null },
      {
        source: "tree/7/1970/1/1/1/account_capnp.bin",
        status: "duplicate",
        reason: "same bytes as a.zip!7/1970/1/1/1/account_capnp.bin",
      },
      { source: "tree/7/1970/1/1/2/account_capnp.bin", status: "loaded", reason: null },
    ]);
  });

  it("names both files of a conflicting account-hour and loads neither under skip-bad", async () => {
    const hours = [
      hour(
        7,
        3600,
        file("a/7/1970/1/1/1/account_capnp.bin", account(7, 1024)),
        file("b/7/1970/1/1/1/account_capnp.bin", account(7, 4096)),
      ),
    ];
    const strict = await load(hours);
    expect(strict.errors).toHaveLength(1);
    expect(strict.errors[0]).toBeInstanceOf(ConflictError);
    expect((strict.errors[0] as ConflictError).files).toEqual([
      "a/7/1970/1/1/1/account_capnp.bin",
      "b/7/1970/1/1/1/account_capnp.bin",
    ]);
    const skipping = await load(hours, { skipBad: true });
    expect(skipping.errors).toEqual([]);
    expect(skipping.skipped.map((s) => [s.file, s.code])).toEqual([
      ["a/7/1970/1/1/1/account_capnp.bin", "CONFLICT"],
      ["b/7/1970/1/1/1/account_capnp.bin", "CONFLICT"],
    ]);
    expect(await rows("SELECT count(*)::INT AS n FROM machines")).toEqual([{ n: 0 }]);
  });

  it("collects every unreadable file, from the reader and the decoder, instead of stopping at the first", async () => {
    const zipError = new BadFileError("ARCHIVE_CHECKSUM", "x.zip!7/1970/1/1/3/account_capnp.bin", "CRC mismatch");
    const outcome = await load(
      [
        hour(7, 3600, file("t/7/1970/1/1/1/account_capnp.bin", "bad")),
        hour(7, 7200, file("t/7/1970/1/1/2/account_capnp.bin", account(7, 1024))),
      ],
      { stopOnError: true },
      [zipError],
    );
    expect(outcome.errors.map((e) => e.message)).toEqual([
      "x.zip!7/1970/1/1/3/account_capnp.bin: CRC mismatch",
      "t/7/1970/1/1/1/account_capnp.bin: segment 0 declares 9 words, has 0",
    ]);
  });

  it("records skipped bad files in the manifest as rejected with their reason and goes on", async () => {
    const outcome = await load(
      [
        hour(7, 3600, file("t/7/1970/1/1/1/account_capnp.bin", "bad")),
        hour(7, 7200, file("t/7/1970/1/1/2/account_capnp.bin", account(7, 1024))),
      ],
      { skipBad: true },
    );
    expect(outcome.skipped).toEqual([
      {
        file: "t/7/1970/1/1/1/account_capnp.bin",
        code: "CAPNP_TRUNCATED",
        reason: "segment 0 declares 9 words, has 0",
      },
    ]);
    expect(outcome.accountHours).toBe(1);
    expect(await rows("SELECT source, status, code FROM files WHERE status = 'rejected'")).toEqual([
      { source: "t/7/1970/1/1/1/account_capnp.bin", status: "rejected", code: "CAPNP_TRUNCATED" },
    ]);
  });
});

describe("loading files the reader left unread (deferTreeReads)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cloudunits-deferred-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  /** A tree file left unread: written to disk unless `content` is "missing". */
  const deferred = (name: string, content: Account | "missing"): Source => {
    const path = join(dir, name.replaceAll("/", "_"));
    if (content !== "missing") writeFileSync(path, JSON.stringify(content));
    return {
      name,
      root: "Account",
      packed: false,
      bytes: new Uint8Array(0),
      deferred: { path, sizeBytes: 100, maxBytes: 1 << 20 },
    };
  };

  it("reads them where they are decoded, and rejects one that has gone, naming it, while the others load", async () => {
    const outcome = await load(
      [
        hour(7, 3600, deferred("t/7/1970/1/1/1/account_capnp.bin", account(7, 1024))),
        hour(7, 7200, deferred("t/7/1970/1/1/2/account_capnp.bin", "missing")),
        hour(7, 10800, deferred("t/7/1970/1/1/3/account_capnp.bin", account(7, 3072))),
      ],
      { skipBad: true },
    );
    expect(outcome.skipped).toEqual([
      {
        file: "t/7/1970/1/1/2/account_capnp.bin",
        code: "INPUT_UNREADABLE",
        reason: expect.stringMatching(/^cannot read the file \(ENOENT/),
      },
    ]);
    expect(await rows("SELECT hour_epoch, mem_mb FROM machines ORDER BY hour_epoch")).toEqual([
      { hour_epoch: "3600", mem_mb: 1024 },
      { hour_epoch: "10800", mem_mb: 3072 },
    ]);
    expect(
      await rows(
        "SELECT source, hour_epoch, status, code, length(content_sha256)::INT AS hash FROM files ORDER BY hour_epoch",
      ),
    ).toEqual([
      { source: "t/7/1970/1/1/1/account_capnp.bin", hour_epoch: "3600", status: "loaded", code: null, hash: 64 },
      {
        source: "t/7/1970/1/1/2/account_capnp.bin",
        hour_epoch: "7200",
        status: "rejected",
        code: "INPUT_UNREADABLE",
        hash: 0,
      },
      { source: "t/7/1970/1/1/3/account_capnp.bin", hour_epoch: "10800", status: "loaded", code: null, hash: 64 },
    ]);
  });

  it("compares the copies of one account-hour by their bytes once read, and names a copy that cannot be read", async () => {
    const outcome = await load([
      hour(
        7,
        3600,
        deferred("a/7/1970/1/1/1/account_capnp.bin", account(7, 1024)),
        deferred("b/7/1970/1/1/1/account_capnp.bin", account(7, 1024)),
        deferred("c/7/1970/1/1/1/account_capnp.bin", "missing"),
      ),
    ]);
    expect(outcome.errors.map((e) => [e.code, (e as BadFileError).file])).toEqual([
      ["INPUT_UNREADABLE", "c/7/1970/1/1/1/account_capnp.bin"],
    ]);
    expect(outcome).toMatchObject({ accountHours: 1, duplicates: ["b/7/1970/1/1/1/account_capnp.bin"] });
    expect(await rows("SELECT mem_mb FROM machines")).toEqual([{ mem_mb: 1024 }]);
  });
});

describe("loading into a warehouse that already holds data (ingest)", () => {
  const first = hour(7, 3600, file("t/7/1970/1/1/1/account_capnp.bin", account(7, 1024)));
  const renamedCopy = hour(7, 3600, file("u/7/1970/1/1/1/account_capnp.bin", account(7, 1024)));
  const changed = hour(7, 3600, file("v/7/1970/1/1/1/account_capnp.bin", account(7, 8192)));

  it("treats the same file again, or the same bytes under another name, as a counted no-op", async () => {
    await load([first]);
    const again = await load([first]);
    const renamed = await load([renamedCopy]);
    expect([again.accountHours, again.duplicates.length, renamed.accountHours, renamed.duplicates.length]).toEqual([
      0, 1, 0, 1,
    ]);
    expect(await rows("SELECT count(*)::INT AS n FROM machines")).toEqual([{ n: 1 }]);
    expect(await rows("SELECT source, status FROM files ORDER BY file_id")).toEqual([
      { source: "t/7/1970/1/1/1/account_capnp.bin", status: "loaded" },
      { source: "u/7/1970/1/1/1/account_capnp.bin", status: "duplicate" },
    ]);
  });

  it("finds the loaded files of every hour when the manifest holds a few hours' files at a time", async () => {
    // 6 hours of account 7 loaded; the manifest read again holds 2 files a window, so 3 windows cover them
    const name = (h: number) => `t/7/1970/1/1/${h}/account_capnp.bin`;
    const hours = [1, 2, 3, 4, 5, 6].map((h) => hour(7, h * 3600, file(name(h), account(7, 1024))));
    await load(hours);
    const changedFifth = hour(7, 5 * 3600, file("v/7/1970/1/1/5/account_capnp.bin", account(7, 8192)));
    const again = [...hours.slice(0, 4), changedFifth, hours[5]!, hour(7, 7 * 3600, file(name(7), account(7, 1024)))];
    const outcome = await loadAccountHours(
      connection,
      iterate(again),
      await Manifest.read(connection, undefined, 2),
      [],
      {
        stager: () => ({
          inFlight: 1,
          stage: async (h, tables) => stageHours(h, tables, { decode }),
          close: async () => {},
        }),
        decode,
      },
    );
    // hours 1-4 and 6 are the same files again, hour 5 conflicts with its loaded file, hour 7 is new
    expect([outcome.accountHours, outcome.duplicates.length, outcome.errors.length]).toEqual([1, 5, 1]);
    expect(outcome.errors[0]!.message).toContain(`${name(5)} (loaded), v/7/1970/1/1/5/account_capnp.bin`);
    expect(await rows("SELECT count(*)::INT AS n FROM files")).toEqual([{ n: 7 }]);
  });

  it("refuses a different file for a loaded account-hour, naming both and suggesting the option replace (not the flag)", async () => {
    await load([first]);
    const outcome = await load([changed]);
    expect(outcome.errors[0]!.message).toContain(
      "t/7/1970/1/1/1/account_capnp.bin (loaded), v/7/1970/1/1/1/account_capnp.bin",
    );
    expect(outcome.errors[0]!.message).toContain("use replace: true to load the new file instead");
    expect(outcome.errors[0]!.message).not.toContain("--replace");
    expect(await rows("SELECT mem_mb FROM machines")).toEqual([{ mem_mb: 1024 }]);
  });

  it("swaps the account-hour with replace, keeping the old manifest row as superseded", async () => {
    await load([first]);
    const outcome = await load([changed], { replace: true });
    expect(outcome.replacedHours).toBe(1);
    expect(await rows("SELECT mem_mb FROM machines")).toEqual([{ mem_mb: 8192 }]);
    expect(await rows("SELECT count(*)::INT AS n FROM account_hours")).toEqual([{ n: 1 }]);
    expect(await rows("SELECT source, status, reason FROM files ORDER BY file_id")).toEqual([
      {
        source: "t/7/1970/1/1/1/account_capnp.bin",
        status: "superseded",
        reason: "replaced by v/7/1970/1/1/1/account_capnp.bin",
      },
      { source: "v/7/1970/1/1/1/account_capnp.bin", status: "loaded", reason: null },
    ]);
  });
});

describe("the manifest's rows", () => {
  it("are written as recorded, column by column: NULL account-hours, reasons and codes, long and short texts, sizes past 4 GiB", async () => {
    await connection.run(
      "INSERT INTO files (file_id, content_sha256, source, size_bytes, status, run_id) VALUES (41, 'x', 'old', 1, 'loaded', 1)",
    );
    const manifest = await Manifest.read(connection);
    const sha = "ab".repeat(32); // 64 characters: too long to inline in DuckDB's 16-byte string record
    manifest.add({
      sha256: sha,
      source: "big.zip!7/2026/10/3/23/account_capnp.bin",
      accountId: 7,
      hourEpoch: 1_790_000_000,
      sizeBytes: 5 * 2 ** 32 + 3, // 21,474,836,483: the int64's high word is 5
      status: "loaded",
      reason: null,
      code: null,
    });
    manifest.add({
      sha256: "",
      source: "a.zip!x", // 7 bytes: inlined
      accountId: null,
      hourEpoch: null,
      sizeBytes: 0,
      status: "rejected",
      reason: "bad path",
      code: "ARCHIVE_BAD_ENTRY",
    });
    await connection.run("BEGIN");
    await manifest.take()(connection);
    await connection.run("COMMIT");
    expect(
      await rows(
        `SELECT file_id, content_sha256, source, account_id, hour_epoch, size_bytes, status, reason, code, run_id
         FROM files WHERE file_id > 41 ORDER BY file_id`,
      ),
    ).toEqual([
      {
        file_id: "42", // after the largest file id already there (41)
        content_sha256: sha,
        source: "big.zip!7/2026/10/3/23/account_capnp.bin",
        account_id: "7",
        hour_epoch: "1790000000",
        size_bytes: "21474836483",
        status: "loaded",
        reason: null,
        code: null,
        run_id: String(manifest.runId),
      },
      {
        file_id: "43",
        content_sha256: "",
        source: "a.zip!x",
        account_id: null,
        hour_epoch: null,
        size_bytes: "0",
        status: "rejected",
        reason: "bad path",
        code: "ARCHIVE_BAD_ENTRY",
        run_id: String(manifest.runId),
      },
    ]);
  });
});
