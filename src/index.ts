/** cloudunits: the public API. Everything public is exported here, by name. */

// Errors, times
export * from "./base/errors.js";
export { parseTime, isoUtc, monthPeriod } from "./base/time.js";

// Reading: find account-hours in zips and trees
export type * from "./input/types.js";
export { readAccountHours, AccountHourReader } from "./input/readAccountHours.js";
export { readDeferred } from "./input/readSource.js";
export { listAccountHours } from "./input/listAccountHours.js";
export { parseConsumptionPath } from "./input/parseConsumptionPath.js";
export type { ConsumptionPath } from "./input/parseConsumptionPath.js";
export { DEFAULT_INPUT_LIMITS } from "./input/limits.js";

// Decoding: bytes to records
export type * from "./capnp/records.js";
export { decodeAccount } from "./capnp/decodeAccount.js";
export { decodeCloudSpace } from "./capnp/decodeCloudSpace.js";
export { decodeAccountHour } from "./capnp/decodeAccountHour.js";
export { unpack } from "./capnp/unpack.js";
export { CapnpError } from "./capnp/CapnpError.js";
export type { CapnpErrorCode } from "./capnp/CapnpError.js";
export type { DecodeOptions } from "./capnp/DecodeOptions.js";

// The store: open(), DuckDB warehouse, ingest, check, reports
export { SCHEMA_SQL, DATA_TABLES } from "./store/schema.js";
export { openWarehouse } from "./store/openWarehouse.js";
export type { OpenWarehouseOptions } from "./store/openWarehouse.js";
export { appendAccountHours, GATEWAY_TYPE } from "./store/append.js";
export type { AppendOptions } from "./store/append.js";
export { FILE_STATUSES } from "./store/schema.js";
export type { DataTable, FileStatus } from "./store/schema.js";
export type { LoadReport, SkippedFile, StoreSource, Warehouse } from "./store/types.js";
export { ingest } from "./store/ingest.js";
export type { IngestOptions, IngestReport } from "./store/ingest.js";
export { checkWarehouse, CHECK_TABLES } from "./store/checkWarehouse.js";
export type { CheckReport, CheckOptions, AccountCheck, MissingRange, UnknownTypeCheck, ZeroResourceCheck, NicCollisionCheck } from "./store/checkWarehouse.js";
export { formatCheckText } from "./store/formatCheckText.js";
export { loadReportDefinition, listReports, REPORTS_DIR } from "./store/reportDefinition.js";
export type { ReportDefinition, ReportColumn } from "./store/reportDefinition.js";
export { runReport } from "./store/runReport.js";
export type { ReportParams, ReportResult } from "./store/runReport.js";
export { reportToCsv, reportToJson, reportToXlsx } from "./export/formatReport.js";
export type { ReportFormat } from "./export/formatReport.js";
export { open } from "./open.js";
export type { Store, OpenOptions, HeldAccount, InvoicePeriods } from "./open.js";
export type { ArqueroTable, ArqueroExpr, ArqueroKeys, ArqueroValue } from "./arqueroTable.js";

// Billing: units, rollups, periods, money, data quality
export { calculate } from "./billing/calculate.js";
export type { CalculateResult, CalculateAccount, CalculateCloudspace, CalculateMachine, Consumption } from "./billing/calculate.js";
export { periodLines, hourlyLines, LEVELS } from "./billing/lines.js";
export type { BillingOptions, BillingParams, BillingLine, EnvironmentLine, AccountLine, CloudspaceLine, GatewayLine, MachineLine, LineOf, Level, LineLevel, Quantities, MachineQuantities, ResolvedBillingOptions, PeriodPart } from "./billing/lines.js";
export { DEFAULT_UNITS, loadUnits, parseUnits } from "./billing/units.js";
export type { Units } from "./billing/units.js";
export { loadNames, makeNames, overlayNames } from "./billing/names.js";
export type { Names, NameKind } from "./billing/names.js";
export { UNIT_NAMES, BASE_UNITS } from "./billing/unitNames.js";
export type { UnitName, CuRollup } from "./billing/unitNames.js";
export { billingReport, reportOf } from "./billing/billingReport.js";
export { billInputs } from "./billing/billInputs.js";
export type { BillInputsOptions } from "./billing/billInputs.js";
export { billWarehouse } from "./billing/billWarehouse.js";
export type { BilledPeriod } from "./billing/billWarehouse.js";
export type { BillingReport, ReportExtras } from "./billing/billingReport.js";
export { hourlyLineCount, levelsFor } from "./billing/lines.js";
export { dataQuality, qualityWarnings, accountHoursIn, missingHoursOf, missingHoursWarnings } from "./billing/dataQuality.js";
export type { DataQuality, MissingRun, Warning as BillingWarning } from "./billing/dataQuality.js";
export { assertBillable, billedImpossibleValues, refuseImpossible } from "./billing/billedImpossibleValues.js";
export { describeImpossible, isImpossible, MEASURED_FIELDS, readImpossibleValues } from "./load/impossibleValues.js";
export type { ImpossiblePart, ImpossibleValue, MeasuredField } from "./load/impossibleValues.js";
export { statsImpossibleValues } from "./stats/statsImpossibleValues.js";
export { loadPrices, parsePrices, currencyDecimals, pricesFor, priceAt, priceChanges, pricePeriods } from "./billing/prices.js";
export type { DatedPrices, PriceList, PricePeriod, UnitPrice, UnitPrices } from "./billing/prices.js";
export { chargeOf, nuUnit, pricingUnitOf } from "./billing/money.js";
export type { Charge, LineCharge, LineMoney } from "./billing/money.js";
export { invoiceOf, accountInvoice } from "./billing/invoice.js";
export type { Invoice, InvoiceLine, PricedPeriod } from "./billing/invoice.js";
export { showback, showbackWeight } from "./billing/showback.js";
export type { Showback } from "./billing/showback.js";
export { splitAmount } from "./billing/splitAmount.js";
export type { SplitShare } from "./billing/splitAmount.js";
export type { PriceBasis } from "./billing/prices.js";
export { Exact } from "./billing/exact.js";

// Statistics series
export { machineStats } from "./stats/machineStats.js";
export { cloudspaceStats } from "./stats/cloudspaceStats.js";
export { accountStats } from "./stats/accountStats.js";
export { statsAccount } from "./stats/statsAccount.js";
export { SERIES_CATALOG } from "./stats/seriesCatalog.js";
export { SERIES_NOT_IN_FILES } from "./stats/selectSeries.js";
export type { SeriesDefinition, SeriesLayout } from "./stats/seriesDefinition.js";
export type * from "./stats/types.js";

// Exports: CSV, XLSX, text, Parquet, FOCUS, stats pages
export { toParquet } from "./export/toParquet.js";
export type { ToParquetOptions, ParquetExport } from "./export/toParquet.js";
export { statsToCsv, STATS_CSV_COLUMNS } from "./export/statsCsv.js";
export { statsToHtml } from "./export/statsHtml.js";
export type { StatsPageSubject } from "./export/statsHtml.js";
export { toBillingCsv, guardFormula } from "./export/toBillingCsv.js";
export type { BillingCsvOptions } from "./export/toBillingCsv.js";
export { writeBillingXlsx, writeAccountXlsx, writeInvoicePack, accountReport, accountFileName, EXCEL_MAX_ROWS } from "./export/writeBillingXlsx.js";
export type { BillingXlsxOptions } from "./export/writeBillingXlsx.js";
export { focusRows, focusWarnings, invoiceIdOf, COST_DECIMALS, CU_ALLOCATION_METHOD, FOCUS_COLUMNS } from "./export/focusRows.js";
export type { FocusOptions, FocusRow } from "./export/focusRows.js";
export { toFocusCsv, costText } from "./export/toFocusCsv.js";
export { toBillingText } from "./export/toBillingText.js";

// The dashboard (cloudunits serve)
export { serveDashboard, type Dashboard, type DashboardOptions } from "./serve/server.js";
export { writeFocusParquet } from "./export/writeFocusParquet.js";
export { writeAtomic } from "./export/writeAtomic.js";
export { statementContent, shownQuantity, periodText, pricePeriodText, unitsParagraph } from "./export/pdf/statementContent.js";
export type { StatementContent, StatementLine, AllocationRow, StatementIssue } from "./export/pdf/statementContent.js";
export { renderStatementPdf } from "./export/pdf/statementPdf.js";
export { writeStatements, numberStatements, issueDateOf } from "./export/pdf/writeStatements.js";
export type { StatementTarget } from "./export/pdf/writeStatements.js";
export { loadStatementConfig, parseStatementConfig, formatStatementNumber, dueDateOf } from "./billing/statementConfig.js";
export type { StatementConfig, StatementParty, StatementTax } from "./billing/statementConfig.js";
export { registerStatementNumbers } from "./store/statementNumbers.js";
export type { StatementNumber, StatementNumberRequest } from "./store/statementNumbers.js";

// Fetching archives from the live service
export { fetchConsumption, FETCH_DEFAULTS } from "./fetch/fetchConsumption.js";
export { consumptionFileName } from "./fetch/consumptionFile.js";
export type { FetchAuth, JwtAuth, SessionAuth, FetchProgress, RequestPolicy, FetchConsumptionOptions, FetchConsumptionResult } from "./fetch/types.js";
export { openSession } from "./fetch/serviceSession.js";
export type { ServiceSession } from "./fetch/serviceSession.js";
export { callService } from "./fetch/callService.js";
export { listAccounts, listCloudspaces } from "./fetch/listEntities.js";
export type { ListedAccount, ListedCloudspace } from "./fetch/listEntities.js";

// Keeping a warehouse current from the service
export { sync } from "./sync/sync.js";
export type { SyncOptions, SyncProgress, SyncReport, SyncedAccount } from "./sync/sync.js";
export type { SyncChunk } from "./sync/syncChunks.js";
export { readEntityNames, writeEntityNames } from "./store/entityNames.js";
export type { ListedName } from "./store/entityNames.js";

// Reconciling our bill with the platform's billing/calculate
export { reconcile, DEFAULT_TOLERANCE } from "./reconcile/reconcile.js";
export type { ReconcileOptions, ReconcileReport, PlatformEnd } from "./reconcile/reconcile.js";
export { compareBills } from "./reconcile/compareBills.js";
export type { BillComparison, ReconcileRow, ReconcileLevel, ReconcileIssue, ComparedCounts } from "./reconcile/compareBills.js";
export { RECONCILED_UNITS } from "./reconcile/billTree.js";
export type { ReconciledUnit, Figures as ReconciledFigures } from "./reconcile/billTree.js";
export { reconcileToText, reconcileToCsv, reconcileToJson, reconcileVerdict } from "./export/reconcileReport.js";

// Synthetic data
export { encodeAccount, encodeCloudSpace } from "./generate/encodeAccount.js";
export type { EncodeOptions } from "./generate/encodeAccount.js";
export { generateHours, GENERATE_DEFAULTS } from "./generate/generateHours.js";
export type { GenerateOptions } from "./generate/generateHours.js";
export { writeDataset } from "./generate/writeDataset.js";
export type { WriteDatasetOptions, WriteDatasetResult } from "./generate/writeDataset.js";
export { hourPath } from "./generate/hourPath.js";
