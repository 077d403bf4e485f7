import { seriesDefinition } from "../stats/seriesCatalog.js";
import { unitOf } from "../stats/seriesDefinition.js";
import { seriesLeaves } from "../stats/seriesLeaves.js";
import type { StatsEntity, StatsResponse } from "../stats/types.js";
import { isoUtc } from "../base/time.js";
import { csvField } from "./csvField.js";

/** The columns of the long statistics CSV, in order. */
export const STATS_CSV_COLUMNS = [
  "time_utc",
  "time_epoch",
  "entity",
  "entity_id",
  "series",
  "key",
  "value",
  "unit",
] as const;

/**
 * A statistics response as long-format CSV: one row per hour, series and key, with the
 * columns of STATS_CSV_COLUMNS. `key` is the path below the series name joined with `.`
 * (`11` for a disk, `0.in` for a NIC's inbound, `vms.out`, `allocated`), empty for a plain
 * series. An hour at which a disk or NIC is absent (`null`) has no row, so a pivot on
 * (time, series, key) shows an empty cell. Values are full float64, unrounded. RFC 4180,
 * `\r\n` line ends.
 */
export function statsToCsv(response: StatsResponse, subject: { entity: StatsEntity; id: number }): string {
  const lines = [STATS_CSV_COLUMNS.join(",")];
  const times = response.time.map((t) => [isoUtc(t), String(t)]);
  for (const [name, tree] of Object.entries(response.series)) {
    const definition = seriesDefinition(subject.entity, name);
    for (const leaf of seriesLeaves(tree)) {
      const key = leaf.path.join(".");
      const unit = definition ? unitOf(definition, leaf.path) : "";
      leaf.values.forEach((value, i) => {
        if (value === null) return;
        const [iso, epoch] = times[i]!;
        lines.push(
          [iso, epoch, subject.entity, String(subject.id), name, key, String(value), unit].map(csvField).join(","),
        );
      });
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}
