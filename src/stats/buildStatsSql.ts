import type { EntityQueries, SeriesDefinition } from "./seriesDefinition.js";

/**
 * One query for a whole request: the entity's common table expressions that are needed,
 * each materialized (so each warehouse table is scanned once), then the sample hours and
 * every requested series, unioned as rows `(series, hour_epoch, k1, k2, value)` where
 * `series` is -1 for the hours and the position in `definitions` for a series.
 */
export function buildStatsSql(queries: EntityQueries, definitions: readonly SeriesDefinition[]): string {
  const parts = [
    `SELECT -1 AS series, hour_epoch, NULL::VARCHAR AS k1, NULL::VARCHAR AS k2, NULL::DOUBLE AS value FROM (${queries.timeSql})`,
    ...definitions.map(
      (d, i) => `SELECT ${i} AS series, hour_epoch, k1::VARCHAR, k2::VARCHAR, value::DOUBLE FROM (${d.sql})`,
    ),
  ];
  const body = parts.join("\nUNION ALL\n");
  const used = neededCtes(queries.ctes, body);
  const ctes = used.map((name) => `${name} AS MATERIALIZED (${queries.ctes[name]})`);
  return `${ctes.length > 0 ? `WITH ${ctes.join(",\n")}\n` : ""}${body}`;
}

/** The CTE names `sql` refers to, with the ones they refer to, in declaration order. */
function neededCtes(ctes: Readonly<Record<string, string>>, sql: string): string[] {
  const names = Object.keys(ctes);
  const needed = new Set<string>();
  let text = sql;
  for (;;) {
    const found = names.filter((n) => !needed.has(n) && new RegExp(`\\b${n}\\b`).test(text));
    if (found.length === 0) break;
    for (const n of found) needed.add(n);
    text = found.map((n) => ctes[n]).join("\n");
  }
  return names.filter((n) => needed.has(n));
}
