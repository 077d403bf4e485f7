/**
 * A reader process for test/sync/readers.test.ts: `node pollingReader.mjs OPEN_WAREHOUSE DB STOP HOLD_MS PAUSE_MS DELAY_MS`
 * opens the warehouse DB read-only as every `--db` command does (with the built module
 * OPEN_WAREHOUSE, src/store/openWarehouse.ts of the test run's build), counts its account-hours,
 * holds it HOLD_MS, closes it, pauses PAUSE_MS, and again (the first time after DELAY_MS), until
 * the file STOP exists (or 400 s passed). Prints each count, or the error, one a line.
 * (Readers in one process would not do: a process's POSIX locks on a file all go with its first close.)
 */
import { existsSync } from "node:fs";

const [module, db, stopFile] = process.argv.slice(2, 5);
const [holdMs, pauseMs, delayMs] = process.argv.slice(5, 8).map(Number);
const { openWarehouse } = await import(module);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const stopAt = Date.now() + 400_000;
await sleep(delayMs);
while (!existsSync(stopFile) && Date.now() < stopAt) {
  try {
    const reader = await openWarehouse({ db }, { waitSeconds: 120 });
    try {
      const n = (await reader.connection.runAndReadAll("SELECT count(*) AS n FROM account_hours")).getRowObjectsJS()[0]
        .n;
      await sleep(holdMs);
      process.stdout.write(`${String(n)}\n`);
    } finally {
      reader.close();
    }
  } catch (error) {
    process.stdout.write(`error: ${error.message}\n`);
  }
  await sleep(pauseMs);
}
