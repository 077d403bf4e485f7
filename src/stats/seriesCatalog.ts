import { ACCOUNT_SERIES } from "./accountSeries.js";
import { CLOUDSPACE_SERIES } from "./cloudspaceSeries.js";
import { MACHINE_SERIES } from "./machineSeries.js";
import type { SeriesDefinition } from "./seriesDefinition.js";
import type { StatsEntity } from "./types.js";

/** Every series each kind of entity offers. */
export const SERIES_CATALOG: Readonly<Record<StatsEntity, readonly SeriesDefinition[]>> = {
  machine: MACHINE_SERIES,
  cloudspace: CLOUDSPACE_SERIES,
  account: ACCOUNT_SERIES,
};

/** The definition of one series of an entity (unit, title); undefined for an unknown name. */
export function seriesDefinition(entity: StatsEntity, name: string): SeriesDefinition | undefined {
  return SERIES_CATALOG[entity].find((d) => d.name === name);
}
