import type { Names } from "../billing/names.js";
import type { PriceList } from "../billing/prices.js";
import type { StatementConfig } from "../invoices/document/statementConfig.js";
import type { Units } from "../billing/units.js";

/** What the dashboard bills with: the same files `billing` takes. */
export interface DashboardSettings {
  /** A price list: amounts, ranking by amount, statements. Without one the dashboard shows units only. */
  prices?: PriceList;
  /** Names put over those `sync` stored in the warehouse (a names file). */
  names?: Names;
  /** The unit constants; default the published ones. */
  units?: Units;
  /** A statement config: the account page offers its PDF statement (a draft: the dashboard never numbers one). */
  statement?: StatementConfig;
}
