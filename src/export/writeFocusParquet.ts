import { randomBytes } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { BillingReport } from "../billing/billingReport.js";
import type { HourlyStream } from "../billing/hourlyStream.js";
import { FOCUS_COLUMNS, type FocusOptions, type FocusType } from "./focusRows.js";
import { toFocusCsv } from "./toFocusCsv.js";
import { writeAtomic } from "./writeAtomic.js";
import { duckdbApi } from "../base/duckdb.js";
import { inMemoryInstance } from "../base/spillFolder.js";

const PARQUET_TYPE: Record<FocusType, string> = {
  decimal: "DECIMAL(38, 12)",
  quantity: "DOUBLE",
  datetime: "TIMESTAMPTZ",
  string: "VARCHAR",
};

/**
 * Writes the FOCUS 1.3 rows as Parquet (atomically): costs and prices DECIMAL(38, 12),
 * quantities DOUBLE, timestamps TIMESTAMP WITH TIME ZONE (UTC), text VARCHAR. The rows go
 * through a temporary CSV converted by a private in-memory DuckDB. `hourly`: the report's hourly lines.
 */
export async function writeFocusParquet(
  report: BillingReport,
  hourly: HourlyStream,
  file: string,
  options: FocusOptions = {},
): Promise<void> {
  const token = `${process.pid}.${randomBytes(4).toString("hex")}`;
  const csv = join(tmpdir(), `cloudunits-focus.${token}.csv`);
  const temp = join(dirname(file), `.${basename(file)}.${token}.tmp`);
  const instance = await inMemoryInstance();
  const converter = await instance.connect();
  try {
    await writeAtomic(csv, toFocusCsv(report, hourly, { ...options, guardFormulas: false }));
    const { STRUCT, VARCHAR, structValue } = duckdbApi();
    const names = FOCUS_COLUMNS.map(([name]) => name);
    const columns = structValue(Object.fromEntries(names.map((name) => [name, "VARCHAR"])));
    const select = FOCUS_COLUMNS.map(([name, type]) => {
      const cast =
        type === "datetime"
          ? `strptime("${name}", '%Y-%m-%dT%H:%M:%SZ')::TIMESTAMP AT TIME ZONE 'UTC'`
          : `CAST("${name}" AS ${PARQUET_TYPE[type]})`;
      return `${cast} AS "${name}"`;
    }).join(", ");
    await converter.run(
      `COPY (SELECT ${select} FROM read_csv($csv, header = true, columns = $columns, nullstr = '', quote = '"', escape = '"'))
       TO $temp (FORMAT parquet)`,
      { csv, columns, temp },
      { columns: STRUCT(Object.fromEntries(names.map((name) => [name, VARCHAR]))) },
    );
    await rename(temp, file);
  } finally {
    converter.closeSync();
    instance.closeSync();
    await rm(csv, { force: true });
    await rm(temp, { force: true });
  }
}
