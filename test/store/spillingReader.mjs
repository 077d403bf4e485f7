/**
 * A reader process for test/store/spillFolder.test.ts: `node spillingReader.mjs OPEN DB COPIES HOLD`
 * opens the warehouse DB read-only as every `--db` command does (with the built module
 * OPEN, src/store/openDatabaseFile.ts of the test run's build) under a memory cap of
 * 64 MiB (as the reading commands), and streams a list of every machine-hour COPIES times over, sorted: too large for the
 * cap, so DuckDB spills it to disk. After the first rows it prints `spilled N IN` (N spill files,
 * in the folder IN); with HOLD `hold`, it then waits for a line on stdin (meanwhile another
 * process reads the same warehouse); with `exit`, it exits there (`process.exit`, as the
 * command line does), without closing the warehouse. Last it prints `rows R sorted S` (the rows it read and
 * whether they came in order) and closes the warehouse, or `error: MESSAGE`.
 */
import { once } from "node:events";
import { dirname } from "node:path";

const [module, db, copies, hold] = process.argv.slice(2, 6);
const { openDatabaseFile } = await import(module);
const MEMORY_LIMIT_BYTES = 64 * 1024 * 1024; // ENGINE_READ_MEMORY_BYTES, the cap of the reading commands
try {
  const { instance, connection } = await openDatabaseFile(db, {
    readOnly: true,
    memoryLimitBytes: MEMORY_LIMIT_BYTES,
    waitSeconds: 60,
  });
  try {
    const watcher = await instance.connect(); // a query on the reading connection would end its stream
    const result = await connection.stream(
      "SELECT md5(concat(account_id, '/', hour_epoch, '/', machine_id, '/', r.range)) AS h FROM machines, range($copies) r ORDER BY h",
      { copies: Number(copies) },
    );
    let rows = 0;
    let sorted = true;
    let last = "";
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      if (rows === 0) {
        const spills = (await watcher.runAndReadAll("SELECT path FROM duckdb_temporary_files()")).getRowsJS();
        const folder = spills.length > 0 ? dirname(String(spills[0][0])) : "-";
        process.stdout.write(`spilled ${spills.length} ${folder}\n`);
        if (hold === "hold") await once(process.stdin, "data");
        if (hold === "exit") process.exit(0); // as the command line ends, the warehouse not closed
      }
      for (const h of chunk.getColumnValues(0)) {
        if (h < last) sorted = false;
        last = h;
      }
      rows += chunk.rowCount;
    }
    watcher.closeSync();
    process.stdout.write(`rows ${rows} sorted ${sorted}\n`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
} catch (error) {
  process.stdout.write(`error: ${error.message}\n`);
}
process.stdin.destroy();
