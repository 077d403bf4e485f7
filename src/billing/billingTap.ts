import type { HourTap, TapPlugin } from "../load/hourTap.js";
import { BillingEngine, type EngineState } from "./billingEngine.js";
import { AccountHourFactsBuilder, FactsVisitor } from "../load/machineFacts.js";
import type { CuRollup } from "./unitNames.js";
import type { Units } from "./units.js";

/** What billing files as they load bills by: the units and the CU rule. */
export interface BillingRules {
  units: Units;
  cuRollup: CuRollup;
  /** Keep the environment's sums only (see `BillingEngine`). Default false. */
  environmentOnly?: boolean;
  /** Hours where a price changes: the parts of the period between them are summed apart too (see `BillingEngine`). */
  splitAt?: readonly number[];
}

/**
 * The billing of one thread, as a tap of the load: the records of each account-hour staged
 * are visited into its facts (see `FactsVisitor`), and the facts summed into its engine.
 */
export function createTap(options: unknown): HourTap {
  const rules = options as BillingRules;
  const builder = new AccountHourFactsBuilder(rules.units.externalNicType);
  const engine = new BillingEngine(rules.units, rules.cuRollup, undefined, rules.environmentOnly, rules.splitAt);
  return {
    visitor: new FactsVisitor(builder),
    begin: (accountId, hourEpoch) => builder.begin(accountId, hourEpoch),
    end: () => engine.add(builder.finish()),
    collect: () => {
      const state = engine.state();
      return {
        state,
        transfer: [state.entities, state.hours, state.counts, state.terms].map((a) => a.buffer as ArrayBuffer),
      };
    },
  };
}

/** This module, for a worker thread to import: `.ts` when running from the sources (tsx), else `.js`. */
const MODULE = new URL(`./billingTap${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url).href;

/** The plug-in that bills what a load stages, by `rules`; the threads' states are `EngineState`s to merge. */
export function billingTap(rules: BillingRules): TapPlugin {
  return { module: MODULE, options: rules, create: createTap };
}

/** The states a billing tap's load collected (`LoadOutcome.tapped`). */
export const engineStates = (tapped: readonly unknown[]): EngineState[] => tapped as EngineState[];
