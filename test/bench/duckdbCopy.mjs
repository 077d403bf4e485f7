// The baseline of ingest.bench.mjs: DuckDB bulk-loading rows it already has, as a whole process.
// `node duckdbCopy.mjs capped|uncapped DB PARQUET_DIR TABLE...`: makes the warehouse file DB as
// `ingest` makes it (the same schema, keys and settings: cloudunits' own opening), then in one
// transaction `INSERT INTO t SELECT * FROM read_parquet('PARQUET_DIR/t.parquet')` for each
// table, commits and checkpoints, as ingest ends. DuckDB runs on all its threads, its memory
// capped at ingest's 96 MiB (`capped`) or at DuckDB's default (`uncapped`: 80% of the
// machine's memory, the faster copy).
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

const [memory, db, dir, ...tables] = process.argv.slice(2);
const { openDatabaseFile } = await import(pathToFileURL(join(root, "dist/store/openDatabaseFile.js")).href);
const { instance, connection } = await openDatabaseFile(
  db,
  memory === "capped" ? { memoryLimitBytes: 96 * 1024 * 1024 } : {},
);
try {
  await connection.run("BEGIN TRANSACTION");
  for (const table of tables) {
    await connection.run(`INSERT INTO ${table} SELECT * FROM read_parquet('${join(dir, `${table}.parquet`)}')`);
  }
  await connection.run("COMMIT");
  await connection.run("CHECKPOINT");
} finally {
  connection.closeSync();
  instance.closeSync();
}
