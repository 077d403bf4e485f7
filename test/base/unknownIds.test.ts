import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmptyPeriodError, ingest, open, parsePrices, UsageError } from "../../src/index.js";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { checkKnownIds } from "../../src/base/unknownIds.js";
import { runCli } from "../helpers/runCli.js";

const START = 1790812800; // 2026-10-01T00:00Z
const END = START + 6 * 3600;
let dir: string;
let tree: string;
let db: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-unknown-"));
  tree = join(dir, "tree");
  await writeDataset({ out: tree, accounts: 3, spaces: 1, machines: 2, hours: 6, start: START, seed: 2 });
  db = join(dir, "w.duckdb");
  await ingest([tree], { db });
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as UsageError | EmptyPeriodError,
  );

describe("an id the data has never seen is an error, never a zero", () => {
  it("the library's calculate and invoice throw UNKNOWN_ID naming the known accounts; a known account without hours in the period is refused as empty", async () => {
    const store = await open({ db });
    try {
      const prices = parsePrices({ currency: "EUR", prices: { CU: 0.01 } });
      for (const error of [
        await failure(store.calculate({ start: START, end: END, accountId: 9 })),
        await failure(store.invoice({ start: START, end: END, accountId: 9 }, prices)),
      ]) {
        expect(error).toBeInstanceOf(UsageError);
        expect(error!.code).toBe("UNKNOWN_ID");
        expect(error!.message).toBe("unknown account 9 (not in the data); known: 1, 2, 3");
      }
      // known, but no hour in the period: not an invoice of 0 (a stalled sync would read as nothing to bill)
      const later = { start: END + 3600, end: END + 7200, accountId: 2 };
      const none = await failure(store.invoice(later, prices));
      expect(none).toBeInstanceOf(EmptyPeriodError);
      expect(none!.message).toMatch(/^no hours held in \[.*\) for account 2: the inputs hold none of it/);
    } finally {
      store.close();
    }
  });

  it("billing --account-id of an unknown account exits 2 naming the known ones, from files and from --db", async () => {
    const period = ["--start", String(START), "--end", String(END), "--account-id", "9", "--format", "json"];
    for (const source of [[tree], ["--db", db]]) {
      const run = await runCli(["billing", ...source, ...period]);
      expect([source[0], run.code]).toEqual([source[0], 2]);
      expect(run.stderr).toContain(
        `unknown account 9 (not in the ${source[0] === "--db" ? "data" : "inputs"}); known: 1, 2, 3`,
      );
      expect(run.stdout).toBe("");
    }
    // known, but no hour in the period: exit 3, not exit 2 (the id is right, the period holds nothing)
    const quiet = await runCli([
      "billing",
      "--db",
      db,
      "--start",
      String(END),
      "--end",
      String(END + 3600),
      "--account-id",
      "1",
      "--format",
      "json",
    ]);
    expect([quiet.code, quiet.stdout]).toEqual([3, ""]);
    expect(quiet.stderr).toMatch(/^cloudunits: no hours held in \[.*\) for account 1: /);
  }, 120_000);

  it("stats --id of an unknown machine, cloud space or account exits 2 naming the known ones", async () => {
    const cases: [string, RegExp][] = [
      ["machine", /unknown machine 99999 \(not in the data\); known: \d+/],
      ["cloudspace", /unknown cloud space 99999 \(not in the data\); known: \d+/],
      ["account", /unknown account 99999 \(not in the data\); known: 1, 2, 3/],
    ];
    for (const [entity, message] of cases) {
      const run = await runCli([
        "stats",
        entity,
        "--db",
        db,
        "--id",
        "99999",
        "--from",
        String(START),
        "--till",
        String(END),
        "--include",
        "memory",
      ]);
      expect([entity, run.code]).toEqual([entity, 2]);
      expect(run.stderr).toMatch(message);
    }
  }, 120_000);

  it("names the nearest known ids when there are many", () => {
    const known = Array.from({ length: 50 }, (_, i) => 100 + i * 10);
    expect(() => checkKnownIds("machine", [255], known, "the data")).toThrow(
      "unknown machine 255 (not in the data); known: 210, 220, 230, 240, 250, 260, 270, 280, 290, 300 (the nearest of 50)",
    );
  });
});
