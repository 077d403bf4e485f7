/**
 * A reader process for test/sync/readers.test.ts: opens the warehouse ARGV[2] read-only as
 * every `--db` command does, counts its account-hours, holds it HOLD_MS, closes it, pauses
 * PAUSE_MS, and again (the first time after DELAY_MS), until the file ARGV[3] exists (or 400 s passed). Prints each count, or the error, one a line.
 * (Readers in one process would not do: a process's POSIX locks on a file all go with its first close.)
 */
import { existsSync } from "node:fs";
import { openWarehouse } from "../../src/store/openWarehouse.js";

const [db, stopFile, holdMs, pauseMs, delayMs] = [process.argv[2]!, process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]), Number(process.argv[6])];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stopAt = Date.now() + 400_000;
await sleep(delayMs);
while (!existsSync(stopFile) && Date.now() < stopAt) {
  try {
    const reader = await openWarehouse({ db }, { waitSeconds: 120 });
    try {
      const n = (await reader.connection.runAndReadAll("SELECT count(*) AS n FROM account_hours")).getRowObjectsJS()[0]!.n;
      await sleep(holdMs);
      process.stdout.write(`${String(n)}\n`);
    } finally {
      reader.close();
    }
  } catch (error) {
    process.stdout.write(`error: ${(error as Error).message}\n`);
  }
  await sleep(pauseMs);
}
