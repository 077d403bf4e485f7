import type { DuckDBConnection } from "@duckdb/node-api";
import {
  bill,
  type BillingLine,
  type BillingOptions,
  type BillingReport,
  type CalculateAccount,
  type CalculateResult,
  type Consumption,
  type DataQuality,
  type Level,
  type LoadReport,
  type Period,
  type PriceList,
} from "../../src/index.js";

// What `bill` gives of a period of the warehouse behind a connection, in the shapes the tests compare.

/** The report, by `rules`, with money when `prices` are given: what the renderers' tests render. */
export async function reportFrom(
  connection: DuckDBConnection,
  period: Period,
  rules: BillingOptions = {},
  { prices }: { prices?: PriceList } = {},
): Promise<BillingReport> {
  return (await bill({ source: { connection }, period, rules, prices })).report;
}

/** The `billing/calculate` shape. */
export async function calculateFrom(
  connection: DuckDBConnection,
  period: Period & { accountId: number },
  rules?: BillingOptions,
): Promise<{ account: CalculateAccount }>;
export async function calculateFrom(
  connection: DuckDBConnection,
  period: Period & { accountId?: undefined },
  rules?: BillingOptions,
): Promise<{ consumption: Consumption }>;
export async function calculateFrom(
  connection: DuckDBConnection,
  period: Period,
  rules: BillingOptions = {},
): Promise<CalculateResult> {
  return (await bill({ source: { connection }, period, rules, produce: { calculate: true } })).calculate!;
}

/** The period lines of the levels (default: the period's), without showback's gateway lines. */
export async function linesFrom(
  connection: DuckDBConnection,
  period: Period,
  rules: BillingOptions = {},
  levels?: readonly Level[],
): Promise<BillingLine[]> {
  const { report } = await bill({ source: { connection }, period, rules, produce: { levels } });
  return report.lines.filter((l) => l.level !== "gateway");
}

/** The data quality (impossible values counted as 0 and listed), with what loading found when given. */
export async function qualityFrom(
  connection: DuckDBConnection,
  period: Period,
  load?: LoadReport,
): Promise<DataQuality> {
  return (
    await bill({
      source: { connection, load },
      period,
      produce: { levels: ["environment"] },
      skipBad: true,
      allowEmpty: true,
    })
  ).report.quality;
}
