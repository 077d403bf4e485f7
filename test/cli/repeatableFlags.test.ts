import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yargs, { type Argv } from "yargs";
import { commands } from "../../src/cli/commands/index.js";
import { generateHours, writeDataset } from "../../src/index.js";
import { runCli as cli } from "../helpers/runCli.js";
import { fakePlatform } from "../fetch/fakePlatform.js";
import { CONSUMPTION_PATH, platform, SECRETS, sendBytes, startServer } from "../fetch/fakeService.js";

// docs/cli.md: "Repeatable flags (`--include`, `--account-id`) may stand before or after the inputs."
// Each repeatable flag takes one value per occurrence, so it never swallows the inputs after it.

const START = 1790812800; // 2026-10-01T00:00Z
const DATA = { accounts: 1, spaces: 1, machines: 2, hours: 3, start: START, seed: 3 };
const PERIOD = ["--from", "2026-10-01T00:00Z", "--till", "2026-10-01T03:00Z"];

/** The repeatable flags these tests cover, by command: `--help` must list no other array option. */
const COVERED: Record<string, string[]> = {
  stats: ["--include"],
  fetch: ["--account-id"],
  sync: ["--account-id"],
  reconcile: ["--account-id"],
  status: ["--accept-lost", "--account-id"], // status takes no inputs to swallow: accepting lost hours is tested in test/sync/lostHours.test.ts
};

let dir: string;
let tree: string;
let machineId: number;
let machineHours: number[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-repeatable-"));
  tree = join(dir, "tree");
  await writeDataset({ ...DATA, out: tree });
  const hours = [...generateHours(DATA)];
  const vms = (h: (typeof hours)[number]) =>
    h.account.cloudspaces.flatMap((c) => c.machines).filter((m) => m.type === "vm");
  machineId = vms(hours[0]!)[0]!.id;
  machineHours = hours.filter((h) => vms(h).some((m) => m.id === machineId)).map((h) => h.hourEpoch);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("repeatable flags before or after the inputs", () => {
  it("every array option of every command is one of the flags tested here, taking one value each", async () => {
    const found: Record<string, string[]> = {};
    for (const entry of commands) {
      const command = await entry.load();
      const parser = yargs([]);
      await (command.builder as (y: Argv) => unknown)(parser);
      // getOptions is yargs' own (untyped) view of the declared options
      const { array, narg } = (
        parser as unknown as { getOptions(): { array: string[]; narg: Record<string, number> } }
      ).getOptions();
      const flags = array.filter((key) => key !== "inputs" && !/[A-Z]/.test(key)); // the inputs positional takes the rest
      for (const key of flags) expect([key, narg[key]]).toEqual([key, 1]);
      if (flags.length > 0) found[String(command.command).split(" ")[0]!] = flags.map((key) => `--${key}`);
    }
    expect(found).toEqual(COVERED);
  });

  it("stats --include S --include S <inputs> (the reference's order, docs/cli.md) gives the same series as the inputs first", async () => {
    const id = ["--id", String(machineId)];
    const specOrder = await cli([
      "stats",
      "machine",
      ...id,
      ...PERIOD,
      "--include",
      "cpu",
      "--include",
      "memory",
      tree,
    ]);
    expect(specOrder.stderr).toBe("");
    expect(specOrder.code).toBe(0);
    const inputsFirst = await cli([
      "stats",
      "machine",
      tree,
      ...id,
      ...PERIOD,
      "--include",
      "cpu",
      "--include",
      "memory",
    ]);
    expect(inputsFirst.code).toBe(0);
    expect(specOrder.stdout).toBe(inputsFirst.stdout);
    const response = JSON.parse(specOrder.stdout) as { time: number[]; series: Record<string, unknown> };
    expect(response.time).toEqual(machineHours);
    expect(machineHours.length).toBeGreaterThan(0);
    expect(Object.keys(response.series).sort()).toEqual(["cpu", "memory"]);
    // between the flags, and with --db: the inputs are never taken for a series name
    const between = await cli(["stats", "machine", "--include", "cpu", tree, "--include", "memory", ...id, ...PERIOD]);
    expect([between.code, between.stdout]).toEqual([0, specOrder.stdout]);
  });

  it("a flag of one value given twice is a usage error (exit 2), never the sum yargs made of it", async () => {
    // yargs' parser counts a repeated flag whose value is 1: --account-id 2 --account-id 1 billed account 3
    const period = ["--start", "2026-10-01", "--end", "2026-10-01T03:00Z"];
    for (const ids of [
      ["1", "1"],
      ["2", "1"],
    ]) {
      const run = await cli(["billing", tree, ...period, "--account-id", ids[0]!, "--account-id", ids[1]!]);
      expect([run.code, run.stdout, run.stderr]).toEqual([
        2,
        "",
        "cloudunits: --account-id given more than once: give it once\n",
      ]);
    }
    const camel = await cli(["billing", tree, ...period, "--account-id=1", "--accountId", "1"]);
    expect(camel.code).toBe(2);
    // once is fine, and repeatable flags and switches still repeat
    const once = await cli(["billing", tree, ...period, "--account-id", "1", "--skip-bad", "--skip-bad"]);
    expect(once.code, once.stderr).toBe(0);
    expect(JSON.parse(once.stdout).account.id).toBe(1);
  });

  it("an --include with no value is a usage error naming the flag (exit 2)", async () => {
    const run = await cli(["stats", "machine", tree, "--id", String(machineId), ...PERIOD, "--include"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/include/);
  });

  it("fetch --account-id N --account-id M downloads both accounts, whether the flags come first or last", async () => {
    const zips = new Map<string, Buffer>();
    for (const accountId of [7, 8]) {
      const file = join(dir, `source-${accountId}.zip`);
      await writeDataset({ ...DATA, firstAccountId: accountId, out: file });
      zips.set(String(accountId), await readFile(file));
    }
    const server = await startServer(
      platform((request, response) =>
        sendBytes(response, zips.get(request.query.get("accountId") ?? "") ?? Buffer.alloc(0)),
      ),
    );
    try {
      const env = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };
      const rest = (out: string) => [
        "--url",
        server.url,
        "--start",
        "2026-10-01T00:00Z",
        "--end",
        "2026-10-01T03:00Z",
        "--out",
        out,
      ];
      const first = await cli(
        ["fetch", "--account-id", "7", "--account-id", "8", ...rest(join(dir, "first") + "/")],
        env,
      );
      const last = await cli(
        ["fetch", ...rest(join(dir, "last") + "/"), "--account-id", "7", "--account-id", "8"],
        env,
      );
      for (const [run, sub] of [
        [first, "first"],
        [last, "last"],
      ] as const) {
        expect([run.code, run.stderr]).toEqual([0, ""]);
        expect((await readdir(join(dir, sub))).sort()).toEqual([
          "consumption-7-20261001T000000Z-20261001T030000Z.zip",
          "consumption-8-20261001T000000Z-20261001T030000Z.zip",
        ]);
      }
    } finally {
      await server.close();
    }
  });

  it("reconcile and sync --account-id N --account-id M take both accounts, before or after the inputs", async () => {
    const hours = [...generateHours({ ...DATA, accounts: 2 })];
    const server = await startServer(fakePlatform({ hours }));
    try {
      const env = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };
      const data = join(dir, "two.zip");
      await writeDataset({ ...DATA, accounts: 2, out: data });
      const rest = [
        "--url",
        server.url,
        "--start",
        "2026-10-01T00:00Z",
        "--end",
        "2026-10-01T03:00Z",
        "--format",
        "json",
      ];
      const first = await cli(["reconcile", "--account-id", "1", "--account-id", "2", data, ...rest], env);
      const last = await cli(["reconcile", data, ...rest, "--account-id", "1", "--account-id", "2"], env);
      for (const run of [first, last]) {
        expect([run.code, run.stderr]).toEqual([0, ""]);
        expect((JSON.parse(run.stdout) as { accountIds: number[] }).accountIds).toEqual([1, 2]);
      }
      const synced = await cli(
        [
          "sync",
          "--url",
          server.url,
          "--db",
          join(dir, "two.duckdb"),
          "--since",
          "2026-10-01",
          "--until",
          "2026-10-01T03:00Z",
          "--account-id",
          "1",
          "--account-id",
          "2",
        ],
        env,
      );
      expect(synced.code).toBe(0);
      expect(server.seenAt(CONSUMPTION_PATH).map((r) => r.query.get("accountId"))).toEqual(["1", "2"]);
    } finally {
      await server.close();
    }
  }, 120_000);
});
