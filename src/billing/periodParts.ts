import { exactSum } from "../base/exactSum.js";
import type { BillingLine, PeriodPart } from "./lines.js";

/** The key of an entity's line, the same in every part of a period: level and ids. */
function keyOf(line: BillingLine): string {
  return `${line.level}/${line.accountId}/${line.cloudspaceId}/${line.machineId}`;
}

/**
 * A figure of an entity over a price period `[start, end)` of a billed period: over the whole
 * period, the whole line's own; over a part of it, the correctly rounded Σ of its lines in the
 * parts the price period covers (`BilledPeriod.parts`; price periods start and end at cuts).
 */
export class PeriodParts {
  private readonly byKey: Map<string, BillingLine>[];

  constructor(
    private readonly period: { start: number; end: number },
    private readonly parts: readonly PeriodPart[] | undefined,
  ) {
    this.byKey = (parts ?? []).map((p) => new Map(p.lines.map((l) => [keyOf(l), l])));
  }

  /** True when `[start, end)` is the whole period. */
  isWhole(start: number, end: number): boolean {
    return start === this.period.start && end === this.period.end;
  }

  /** `figure` of the entity of `line` over `[start, end)`: of the line, or Σ of it on the entity's lines of the parts. */
  over<L extends BillingLine>(line: L, start: number, end: number, figure: (l: L) => number): number {
    if (this.isWhole(start, end)) return figure(line);
    if (this.parts === undefined) {
      // bill() cuts every period at its price changes: only a period billed some other way lands here
      throw new RangeError(
        "a price changes within the period, which was billed without its price cuts: bill it with bill({ prices })",
      );
    }
    const terms: number[] = [];
    this.parts.forEach((part, k) => {
      if (part.start < start || part.end > end) return;
      const own = this.byKey[k]!.get(keyOf(line)) as L | undefined; // the same key: the same level
      if (own) terms.push(figure(own));
    });
    return exactSum(terms);
  }
}
