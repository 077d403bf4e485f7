import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeAccount } from "../../src/generate/encodeAccount.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { runCli } from "../helpers/runCli.js";
import { sharedTextAccount } from "../helpers/sharedText.js";
import { HOUR, OCT_1, vm } from "../helpers/warehouse.js";

/**
 * Files with texts no real file has: one image name of 1 MB (past the 64 KiB text limit),
 * and one 10 KB image name shared by 7 machines (texts decoding to more than the file
 * holds). Each is a bad file of its own: named, exit 3, and --skip-bad loads the rest.
 */
describe("ingest and files with outsized texts", () => {
  let root: string;
  const files = {
    good: join(hourPath(2, OCT_1), "account_capnp.bin"),
    long: join(hourPath(2, OCT_1 + HOUR), "account_capnp.bin"),
    shared: join(hourPath(2, OCT_1 + 2 * HOUR), "account_capnp.bin"),
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "cloudunits-texts-"));
    const account = (imageName: string) =>
      encodeAccount({
        accountId: 2,
        cloudspaces: [{ cloudSpaceId: 1, accountId: 2, state: "DEPLOYED", machines: [vm(1, { imageName })] }],
      });
    const contents = {
      good: account("ubuntu-22.04"),
      long: account("x".repeat(1 << 20)),
      shared: sharedTextAccount(2, 7, 10_000),
    };
    for (const [name, bytes] of Object.entries(contents)) {
      const file = join(root, "tree", files[name as keyof typeof files]);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, bytes);
    }
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("names both files and exits 3; with --skip-bad loads the good hour and exits 0", async () => {
    const db = join(root, "w.duckdb");
    const refused = await runCli(["ingest", join(root, "tree"), "--db", db]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`${files.long}: text at segment 0 word`);
    expect(refused.stderr).toContain("is 1048576 bytes, more than the text limit of 65536 bytes");
    expect(refused.stderr).toContain(`${files.shared}: the message's texts decode to more than`);

    const skipped = await runCli(["ingest", join(root, "tree"), "--db", db, "--skip-bad"]);
    expect(skipped.stderr).toMatch(/CAPNP_TEXT_LIMIT/);
    expect(skipped.code).toBe(0);
    const { instance, connection } = await openDatabaseFile(db, { readOnly: true });
    const hours = (await connection.runAndReadAll("SELECT hour_epoch FROM machines ORDER BY ALL"))
      .getRowObjectsJS()
      .map((r) => Number(r.hour_epoch));
    connection.closeSync();
    instance.closeSync();
    expect(hours).toEqual([OCT_1]);
  }, 120_000);
});
