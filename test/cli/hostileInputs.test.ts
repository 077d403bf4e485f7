// Issue 19: what a crafted zip or an odd tree did to `cloudunits billing`, run as in life.
// A zip whose end record counted 1 entry for 2 billed half the CU at exit 0; a link to / in a
// tree walked the whole disk. Each is now refused and named (exit 3), or named and passed over
// with --skip-bad (exit 0), and nothing of it is billed.
import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeAccount, generateHours } from "../../src/internal.js";
import { runCli } from "../helpers/runCli.js";
import { rawZip, tempDir, writeTree } from "../input/zipFixtures.js";

const PERIOD = ["--start", "2026-10-01", "--end", "2026-10-02", "--format", "json"];

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  const hours = [
    ...generateHours({ accounts: 1, spaces: 1, machines: 2, hours: 2, start: Date.UTC(2026, 9, 1) / 1000, seed: 1 }),
  ];
  const entries = hours.map((hour) => {
    const h = new Date(hour.hourEpoch * 1000);
    return {
      name: `${hour.accountId}/2026/10/1/${h.getUTCHours()}/account_capnp.bin`,
      data: Buffer.from(encodeAccount(hour.account)),
    };
  });
  await writeFile(join(dir, "whole.zip"), rawZip(entries));
  await writeFile(join(dir, "half.zip"), rawZip(entries, { entryCount: 1 }));
  await writeTree(
    dir,
    entries.map((e) => `tree/${e.name}`),
    (path) => entries.find((e) => `tree/${e.name}` === path)!.data,
  );
  await symlink("/", join(dir, "tree/root"));
});
afterAll(() => cleanup());

describe("cloudunits billing over hostile inputs", () => {
  it("refuses a zip whose end record counts 1 entry for 2 (it billed half at exit 0): exit 3, the archive named", async () => {
    const whole = await runCli(["billing", join(dir, "whole.zip"), ...PERIOD]);
    expect(whole.code, whole.stderr).toBe(0);
    const half = await runCli(["billing", join(dir, "half.zip"), ...PERIOD]);
    expect(half.code).toBe(3);
    expect(half.stderr).toContain(
      `${join(dir, "half.zip")}: corrupt central directory (the end record declares 1 entry, the directory holds 2: refused, it would be read in part)`,
    );
    expect(half.stdout).toBe("");
  });

  it("never walks a link to / in a tree: exit 3 naming it, and with --skip-bad the tree's own hours are billed", async () => {
    const strict = await runCli(["billing", join(dir, "tree"), ...PERIOD]);
    expect(strict.code).toBe(3);
    expect(strict.stderr).toContain(`${join(dir, "tree/root")}: a symbolic link to /, outside ${join(dir, "tree")}`);
    const skipping = await runCli(["billing", join(dir, "tree"), ...PERIOD, "--skip-bad"]);
    const whole = await runCli(["billing", join(dir, "whole.zip"), ...PERIOD]);
    expect(skipping.code, skipping.stderr).toBe(0);
    expect(skipping.stderr).toContain("[INPUT_LINK_OUTSIDE]");
    expect(JSON.parse(skipping.stdout)).toEqual(JSON.parse(whole.stdout));
  });
});
