import type { DuckDBConnection } from "@duckdb/node-api";
import type { BillingOptions } from "../billing/billingOptions.js";
import { overlayNames } from "../billing/names.js";
import { readEntityNames } from "../store/entityNames.js";

/** The options with the names `sync` stored in the warehouse under those given (as `open()` bills). */
export async function withStoredNames(
  connection: DuckDBConnection,
  options: BillingOptions = {},
): Promise<BillingOptions> {
  return { ...options, names: overlayNames(await readEntityNames(connection), options.names) };
}
