/**
 * cloudunits/internal: the building blocks under the public API (`cloudunits`), for tests,
 * benchmarks and the brave. Everything of `cloudunits` is here too. No promise of stability:
 * names and signatures here change without notice; what a script needs is in `cloudunits`.
 */

export * from "./index.js";

export { AccountHourReader } from "./input/readAccountHours.js";
export { readDeferred } from "./input/readSource.js";
export { parseConsumptionPath } from "./input/parseConsumptionPath.js";
export type { ConsumptionPath } from "./input/parseConsumptionPath.js";
export { DEFAULT_INPUT_LIMITS } from "./input/limits.js";
export { decodeAccount } from "./capnp/decodeAccount.js";
export { decodeCloudSpace } from "./capnp/decodeCloudSpace.js";
export { unpack } from "./capnp/unpack.js";
export type { DecodeOptions } from "./capnp/DecodeOptions.js";
export { SCHEMA_SQL, DATA_TABLES } from "./store/schema.js";
export { openWarehouse } from "./store/openWarehouse.js";
export type { OpenWarehouseOptions } from "./store/openWarehouse.js";
export { appendAccountHours, GATEWAY_TYPE } from "./store/append.js";
export type { AppendOptions } from "./store/append.js";
export { FILE_STATUSES } from "./store/schema.js";
export type { Warehouse } from "./store/types.js";
export { checkWarehouse, CHECK_TABLES } from "./store/checkWarehouse.js";
export type { CheckOptions } from "./store/checkWarehouse.js";
export { loadReportDefinition, REPORTS_DIR } from "./store/reportDefinition.js";
export { runReport } from "./store/runReport.js";
export { calculateOf } from "./billing/calculate.js";
export { overlayNames } from "./billing/names.js";
export { BASE_UNITS } from "./billing/unitNames.js";
export { levelsFor, calculateLevels } from "./billing/levels.js";
export { hourlyLines } from "./billing/hourlyWarehouse.js";
export { hourlyLineCount } from "./billing/hourlyLineCount.js";
export { warehouseHourly } from "./billing/hourlyStream.js";
export { resolveOptions } from "./billing/billingOptions.js";
export { linesOf, partsOf } from "./billing/engineLines.js";
export { billingPass } from "./billing/billingPass.js";
export { warehouseRoads } from "./billing/warehouseRoads.js";
export type { WarehouseRoad } from "./billing/warehouseRoads.js";
export { priceCuts, dayCuts, cutsWithin } from "./billing/cuts.js";
export { reportOf } from "./billing/billingReport.js";
export type { ReportExtras } from "./billing/billingReport.js";
export { billInputs } from "./billing/billInputs.js";
export type { BillInputsOptions } from "./billing/billInputs.js";
export { billWarehouse } from "./billing/billWarehouse.js";
export type { BilledPeriod, WarehouseBilling } from "./billing/billWarehouse.js";
export { invoiceOf } from "./billing/invoice.js";
export type { PricedPeriod } from "./billing/invoice.js";
export { sourceRoad } from "./billEntry/sourceRoad.js";
export { qualityWarnings, accountHoursIn, missingHoursOf, missingHoursWarnings } from "./billing/dataQuality.js";
export { billedImpossibleValues, refuseImpossible } from "./billing/billedImpossibleValues.js";
export { describeImpossible, isImpossible, MEASURED_FIELDS, readImpossibleValues } from "./load/impossibleValues.js";
export { statsImpossibleValues } from "./stats/statsImpossibleValues.js";
export { currencyDecimals, pricesFor } from "./billing/prices.js";
export { nuUnit, pricingUnitOf } from "./billing/money.js";
export { showback, showbackWeight } from "./billing/showback.js";
export type { Showback } from "./billing/showback.js";
export { machineStats } from "./stats/machineStats.js";
export { cloudspaceStats } from "./stats/cloudspaceStats.js";
export { accountStats } from "./stats/accountStats.js";
export { statsAccount } from "./stats/statsAccount.js";
export { SERIES_NOT_IN_FILES } from "./stats/selectSeries.js";
export { toParquet } from "./export/toParquet.js";
export { guardFormula } from "./export/toBillingCsv.js";
export { accountReport, accountFileName, EXCEL_MAX_ROWS } from "./export/writeBillingXlsx.js";
export { focusRows, focusWarnings, invoiceIdOf, COST_DECIMALS, CU_ALLOCATION_METHOD } from "./export/focusRows.js";
export { costText } from "./export/toFocusCsv.js";
export { writeAtomic } from "./export/writeAtomic.js";
export { unitsParagraph } from "./export/unitDefinitions.js";
export {
  documentWords,
  capText,
  countryName,
  groupThousands,
  taxLabel,
  NAME_LIMIT,
  BLOCK_LINES_LIMIT,
  NOTE_LIMIT,
} from "./invoices/document/documentWords.js";
export type { DocumentWords, LineWords, PartyWords } from "./invoices/document/documentWords.js";
export { draftDocument, issueDateOf } from "./invoices/document/draftDocument.js";
export { draftFileName } from "./invoices/render/pdf/writeStatements.js";
export { fontRuns, missingGlyphs } from "./invoices/render/pdf/pdfFonts.js";
export { formatStatementNumber, dueDateOf } from "./invoices/document/statementConfig.js";
export { consumptionFileName } from "./fetch/consumptionFile.js";
export { openSession } from "./fetch/serviceSession.js";
export type { ServiceSession } from "./fetch/serviceSession.js";
export { callService } from "./fetch/callService.js";
export { listAccounts, listCloudspaces } from "./fetch/listEntities.js";
export type { ListedAccount, ListedCloudspace } from "./fetch/listEntities.js";
export { readEntityNames, writeEntityNames } from "./store/entityNames.js";
export type { ListedName } from "./store/entityNames.js";
export { compareBills } from "./reconcile/compareBills.js";
export { RECONCILED_UNITS } from "./reconcile/billTree.js";
export { encodeAccount, encodeCloudSpace } from "./generate/encodeAccount.js";
export type { EncodeOptions } from "./generate/encodeAccount.js";
export { hourPath } from "./generate/hourPath.js";
export { FORECAST_UNITS } from "./forecast/forecast.js";
export { ANOMALY_LEVELS } from "./forecast/anomalies.js";
export { DEFAULT_THRESHOLDS } from "./forecast/budgets.js";
export { previousPeriod, TOP_LEVELS } from "./forecast/top.js";
export { METRICS } from "./forecast/usageTable.js";
export { alertsBody } from "./export/alertsReport.js";
