import { UsageError } from "../base/errors.js";
import type { SeriesDefinition } from "./seriesDefinition.js";
import type { StatsEntity } from "./types.js";

/** Series of the platform's API that the consumption files hold no data for (docs/statistics.md). */
export const SERIES_NOT_IN_FILES: readonly string[] = ["vdisk-latency", "vdisk-bandwidth"];

/**
 * The definitions of the requested series, in the order asked, without duplicates.
 * Throws a UsageError naming every name that cannot be served: the ones the files hold no
 * data for, and unknown ones (with the names that are allowed).
 */
export function selectSeries(
  entity: StatsEntity,
  catalog: readonly SeriesDefinition[],
  include: string | readonly string[],
): SeriesDefinition[] {
  const names = [...new Set(typeof include === "string" ? [include] : include)];
  const allowed = catalog.map((d) => d.name).join(", ");
  if (names.length === 0)
    throw new UsageError(`no series requested for the ${entity}: name one or more of ${allowed} with include`);
  const notInFiles = names.filter((n) => SERIES_NOT_IN_FILES.includes(n));
  const unknown = names.filter((n) => !SERIES_NOT_IN_FILES.includes(n) && !catalog.some((d) => d.name === n));
  const problems: string[] = [];
  if (notInFiles.length > 0) {
    problems.push(
      `${notInFiles.join(" and ")} cannot be computed: the consumption files record no disk latency or bandwidth`,
    );
  }
  if (unknown.length > 0) {
    problems.push(`unknown ${entity} series ${unknown.map((n) => `"${n}"`).join(", ")}`);
  }
  if (problems.length > 0)
    throw new UsageError(`${problems.join("; ")} (${entity} series: ${allowed})`, { code: "BAD_INCLUDE" });
  return names.map((n) => catalog.find((d) => d.name === n)!);
}
