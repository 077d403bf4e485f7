import { bill } from "../billEntry/bill.js";
import type { BillingReport } from "../billing/billingReport.js";
import { overlayNames } from "../billing/names.js";
import type { Quantities } from "../billing/lines.js";
import { forecast, type EntityForecast, type ForecastCurrencyAmounts } from "../forecast/forecast.js";
import { readEntityNames } from "../store/entityNames.js";
import type { Warehouse } from "../store/types.js";
import { registerDrift, type RegisterDrift } from "../invoices/register/registerDrift.js";
import { verifyRegister } from "../invoices/register/registerChain.js";
import { warehouseStatus, type WarehouseStatus } from "../sync/warehouseStatus.js";
import type { DashboardSettings } from "./dashboardSettings.js";
import { chosenMonth, monthsOf, type MonthChoice } from "./months.js";
import { clockNow } from "../base/clock.js";

/** One account of the overview, ranked by amount (by CU without a price list). */
export interface OverviewAccount {
  accountId: number;
  name: string;
  quantities: Quantities;
  /** The account's amount due for the month so far (absent without a price list), as the invoice writes it. */
  amount?: string;
  /** The currency of `amount` (with it): a customer may bill in its own. */
  currency?: string;
}

/** What the overview page shows of one month. */
export interface OverviewData {
  month: MonthChoice;
  /** Every month the warehouse holds hours of, oldest first. */
  months: MonthChoice[];
  /** The environment's units per UTC day with samples. */
  days: { start: number; quantities: Quantities }[];
  accounts: OverviewAccount[];
  /** Σ of the accounts' amounts due and its currency (absent without a price list, or when they bill in several currencies). */
  amountDue?: { amount: string; currency: string };
  /** Σ of the accounts' amounts due per currency, and its accounts (absent without a price list): two currencies are never added. */
  amountsDue?: { amount: string; currency: string; accountIds: number[] }[];
  /** True when the dashboard knows taxes (a statement config): its amounts, before tax, are then not called amounts due (the account page gives those). */
  taxesKnown: boolean;
  /**
   * The environment's month-end forecast (`forecast`, as `cloudunits forecast` gives it), when
   * the month runs past the last hour held; its amounts need a price list.
   */
  forecast?: EntityForecast;
  /**
   * The month-end forecast's amounts per currency (with `forecast` and a price list): when the
   * accounts bill in several, the environment's `forecast` has no amount and each currency its own.
   */
  forecastAmounts?: ForecastCurrencyAmounts[];
  /** The report the figures come from (invoices, data quality). */
  report: BillingReport;
  status: WarehouseStatus;
  /** Issued invoices (of any month) whose hours the warehouse now holds otherwise: to be corrected. */
  invoicesToCorrect: RegisterDrift[];
  /** What the invoice register disagrees with its chain in (changed outside cloudunits), one line each: `verifyRegister`'s problems. */
  registerProblems: string[];
}

/**
 * The overview of one month (default: the month of the last hour held; NotFoundError for a
 * month it holds no hour of): the environment's units per day, the accounts ranked by amount
 * due so far (or by CU), the total, and the warehouse's freshness per account. One bill, by
 * day too (`bill`); while the month runs past the last hour held, its month-end
 * forecast too.
 */
export async function overviewData(
  store: Warehouse,
  settings: DashboardSettings,
  month?: string,
  nowEpoch = clockNow(),
): Promise<OverviewData> {
  const { connection } = store;
  const status = await warehouseStatus(store, nowEpoch);
  const months = monthsOf(status, nowEpoch);
  const chosen = chosenMonth(months, month, "the warehouse");
  const names = overlayNames(await readEntityNames(connection), settings.names);
  const { report, days = [] } = await bill({
    source: store,
    period: { start: chosen.start, end: chosen.end },
    prices: settings.prices,
    rules: { units: settings.units, names: settings.names },
    produce: { levels: ["environment", "account"], days: true, dayLevels: ["environment"] }, // the environment's days alone
    skipBad: true,
    allowEmpty: true, // impossible values count as 0: the report's data quality lists them
  });
  const invoices = new Map(report.invoices?.map((inv) => [inv.accountId, inv]));
  const accounts = report.lines
    .filter((l) => l.level === "account")
    .map((l): OverviewAccount => {
      const invoice = invoices.get(l.accountId!);
      return {
        accountId: l.accountId!,
        name: l.name,
        quantities: l.quantities,
        amount: invoice?.amountDue.toFixed(invoice.decimals),
        ...(invoice ? { currency: invoice.currency } : {}),
      };
    });
  // amounts in several currencies are not compared: the accounts are then ranked by CU
  const oneCurrency = (report.amountsDue?.length ?? 0) <= 1;
  accounts.sort(
    (a, b) =>
      (oneCurrency && a.amount !== undefined && b.amount !== undefined
        ? Number(b.amount) - Number(a.amount)
        : (b.quantities.CU ?? 0) - (a.quantities.CU ?? 0)) || a.accountId - b.accountId,
  );
  const first = report.invoices?.[0];
  const projection =
    status.period !== null && chosen.heldUntil !== null
      ? await forecast(connection, {
          month: chosen.month,
          prices: settings.prices,
          options: { units: settings.units, names },
        })
      : undefined;
  return {
    month: chosen,
    months,
    days: days.map((d) => ({ start: d.start, quantities: d.lines.find((l) => l.level === "environment")!.quantities })),
    accounts,
    amountDue:
      report.amountDue && first
        ? { amount: report.amountDue.toFixed(first.decimals), currency: first.currency }
        : undefined,
    amountsDue: report.amountsDue?.map((t) => ({
      amount: t.amount.toFixed(t.decimals),
      currency: t.currency,
      accountIds: t.accountIds,
    })),
    taxesKnown: settings.statement !== undefined,
    forecast: projection?.entries.find((e) => e.level === "environment"),
    forecastAmounts: projection?.amounts,
    report,
    status,
    invoicesToCorrect: await registerDrift(connection),
    registerProblems: (await verifyRegister(connection)).problems,
  };
}
