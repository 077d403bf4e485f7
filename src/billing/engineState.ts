import { addSeenData, type EngineSums, type Entity, type SeenData } from "./engineSums.js";

/**
 * An engine's sums as plain data (partials: their exact sums are the sums), to move between
 * threads and merge into another engine (`BillingEngine.merge`).
 */
export interface EngineState {
  /** Per entity: rank, account, cloud space and machine ids (NaN for none), samples and part of the period. */
  entities: Float64Array;
  /** Per hour of the environment: the hour, its accounts, vCPUs and gateways' PIU. */
  hours: Float64Array;
  /** The units the sums are of, in order (engines merge only with the same units). */
  units: readonly string[];
  /** The terms of every sum: each entity's F, then each hour's L, `counts[i]` terms for sum i. */
  counts: Uint32Array;
  terms: Float64Array;
  seen: SeenData;
}

/** The numbers per entity and per hour in an {@link EngineState}. */
const ENTITY_FIELDS = 6;
const HOUR_FIELDS = 4;

/** The threads' road: an engine's sums and what it saw, as typed arrays (to move between threads without copying). */
export function engineState(sums: EngineSums): EngineState {
  const counts: number[] = [];
  const terms: number[] = [];
  const id = (x: number | null) => x ?? Number.NaN;
  const entities = new Float64Array(ENTITY_FIELDS * sums.entities.length);
  sums.entities.forEach((e, i) => {
    entities.set([e.rank, id(e.accountId), id(e.cloudspaceId), id(e.machineId), e.samples, e.part], ENTITY_FIELDS * i);
    sums.period.exportTerms(e.base, sums.F, counts, terms);
  });
  const hours = new Float64Array(HOUR_FIELDS * sums.environmentHours.size);
  let i = 0;
  for (const [hourEpoch, h] of sums.environmentHours) {
    hours.set([hourEpoch, h.accounts, h.counts.vcpus, h.counts.gatewayPiu], HOUR_FIELDS * i++);
    sums.environment.exportTerms(h.base, sums.L, counts, terms);
  }
  return {
    entities,
    hours,
    units: sums.unitNames,
    counts: Uint32Array.from(counts),
    terms: Float64Array.from(terms),
    seen: sums.seen,
  };
}

/** The entity of `sums` with the ids of entity `i` of a state (made when it has none). */
function entityOf(sums: EngineSums, entities: Float64Array, i: number): Entity {
  const rank = entities[i]!;
  const accountId = entities[i + 1]!;
  const cloudspaceId = entities[i + 2]!;
  const machineId = entities[i + 3]!;
  const part = entities[i + 5]!;
  const account = sums.accountOf(part, accountId);
  if (rank === 1) return account.entity;
  const cloudspace = sums.cloudspaceOf(account, cloudspaceId);
  if (rank === 2) return (cloudspace.entity ??= sums.entity(2, accountId, cloudspaceId, null, part));
  let machine = cloudspace.machines.get(machineId);
  if (machine === undefined)
    cloudspace.machines.set(machineId, (machine = sums.entity(3, accountId, cloudspaceId, machineId, part)));
  return machine;
}

/**
 * Adds another engine's account-hours (same units and CU rule; see {@link engineState}), exactly:
 * engines fed parts of a period merge into the figures of one fed it all, to the bit.
 */
export function mergeEngineState(sums: EngineSums, state: EngineState): void {
  const { entities, hours, counts, terms } = state;
  if (state.units.join() !== sums.unitNames.join()) {
    throw new Error(
      `internal: engines of different units merged (${state.units.join(", ")} into ${sums.unitNames.join(", ")}): a unit registered in one thread only?`,
    );
  }
  let c = 0;
  let at = 0;
  for (let i = 0; i < entities.length; i += ENTITY_FIELDS) {
    const mine = entityOf(sums, entities, i);
    mine.samples += entities[i + 4]!;
    at = sums.period.importTerms(mine.base, sums.F, counts, c, terms, at);
    c += sums.F;
  }
  for (let i = 0; i < hours.length; i += HOUR_FIELDS) {
    const hour = sums.environmentHour(hours[i]!);
    hour.accounts += hours[i + 1]!;
    hour.counts.vcpus += hours[i + 2]!;
    hour.counts.gatewayPiu += hours[i + 3]!;
    at = sums.environment.importTerms(hour.base, sums.L, counts, c, terms, at);
    c += sums.L;
  }
  addSeenData(sums.seen, state.seen);
}
