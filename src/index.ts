/** cloudunits: the public API. Everything public is exported here, by name. */

// Errors, times
export * from "./base/errors.js";
export { ERROR_CODES } from "./base/errorCodes.js";
export type { ErrorCode, ErrorCodeInfo, ErrorCodeWithExit } from "./base/errorCodes.js";
export { parseTime, isoUtc, monthPeriod } from "./base/time.js";

// Reading: find account-hours in zips and trees
export type * from "./input/types.js";
export { readAccountHours } from "./input/readAccountHours.js";
export { listAccountHours } from "./input/listAccountHours.js";

// Decoding: bytes to records
export type * from "./capnp/records.js";
export { decodeAccountHour } from "./capnp/decodeAccountHour.js";
export { CapnpError } from "./capnp/CapnpError.js";
export type { CapnpErrorCode } from "./capnp/CapnpError.js";

// The store: open(), DuckDB warehouse, ingest, check, reports
export type { DataTable, FileStatus } from "./store/schema.js";
export type { LoadReport, SkippedFile, StoreSource } from "./store/types.js";
export { ingest } from "./store/ingest.js";
export type { IngestOptions, IngestReport } from "./store/ingest.js";
export type {
  CheckReport,
  AccountCheck,
  MissingRange,
  UnknownTypeCheck,
  ZeroResourceCheck,
  NicCollisionCheck,
} from "./store/checkWarehouse.js";
export { formatCheckText } from "./store/formatCheckText.js";
export { listReports } from "./store/reportDefinition.js";
export type { ReportDefinition, ReportColumn } from "./store/reportDefinition.js";
export type { ReportParams, ReportResult } from "./store/runReport.js";
export { reportToCsv, reportToJson, reportToXlsx } from "./export/formatReport.js";
export type { ReportFormat } from "./export/formatReport.js";
export { open } from "./open.js";
export type { Store, OpenOptions, HeldAccount, InvoicePeriods, InvoiceRegisterFilter } from "./open.js";
export type { ArqueroTable, ArqueroExpr, ArqueroKeys, ArqueroValue } from "./arqueroTable.js";

// Billing: one entry (bill), and the units, rollups, periods, money and data quality of its bills
export { bill } from "./billEntry/bill.js";
export type {
  Bill,
  BillRequest,
  BillSource,
  WarehouseSource,
  BillProduce,
  BillReading,
  BilledDay,
  BillRoad,
} from "./billEntry/bill.js";
export type { SourceRoad } from "./billEntry/sourceRoad.js";
export type { WarehouseRoadName } from "./billing/warehouseRoads.js";
export type { Period } from "./base/period.js";
export type {
  CalculateResult,
  CalculateAccount,
  CalculateCloudspace,
  CalculateMachine,
  Consumption,
} from "./billing/calculate.js";
export { LEVELS } from "./billing/levels.js";
export type { Level, LineLevel } from "./billing/levels.js";
export type { HourlyStream } from "./billing/hourlyStream.js";
export type { BillingOptions, ResolvedBillingOptions } from "./billing/billingOptions.js";
export type {
  BillingLine,
  EnvironmentLine,
  AccountLine,
  CloudspaceLine,
  GatewayLine,
  MachineLine,
  LineOf,
  Quantities,
  MachineQuantities,
  PeriodPart,
} from "./billing/lines.js";
export { DEFAULT_UNITS, loadUnits, parseUnits } from "./billing/units.js";
export type { CpuReading, NicReading } from "./billing/units.js";
export type { Units } from "./billing/units.js";
export { loadNames, makeNames } from "./billing/names.js";
export type { Names, NameKind } from "./billing/names.js";
export { UNIT_NAMES } from "./billing/unitNames.js";
export type { UnitName, CuRollup } from "./billing/unitNames.js";
export type { BillingReport, CurrencyTotal } from "./billing/billingReport.js";
export type { DataQuality, MissingRun, Warning as BillingWarning } from "./billing/dataQuality.js";
export type { ImpossiblePart, ImpossibleValue, MeasuredField } from "./load/impossibleValues.js";
export { currencyOf, loadPrices, parsePrices, priceAt, priceChanges, pricePeriods } from "./billing/prices.js";
export type { CustomerPrices, DatedPrices, PriceList, PricePeriod, UnitPrice, UnitPrices } from "./billing/prices.js";
export { chargeOf } from "./billing/money.js";
export type { Charge, LineCharge, LineMoney } from "./billing/money.js";
export type { Invoice, InvoiceLine } from "./billing/invoice.js";
export { shownQuantity } from "./invoices/document/invoiceQuantity.js";
export { splitAmount } from "./billing/splitAmount.js";
export type { SplitShare } from "./billing/splitAmount.js";
export type { PriceBasis } from "./billing/prices.js";
export { Exact } from "./billing/exact.js";

// Statistics series
export { SERIES_CATALOG } from "./stats/seriesCatalog.js";
export type { SeriesDefinition, SeriesLayout } from "./stats/seriesDefinition.js";
export type * from "./stats/types.js";

// Exports: CSV, XLSX, text, Parquet, FOCUS, stats pages. A function that gives a text is named
// <subject>To<Format> (billingToCsv, statsToCsv, topToText), one that writes a file write<Subject><Format>.
export type { ToParquetOptions, ParquetExport } from "./export/toParquet.js";
export { statsToCsv, STATS_CSV_COLUMNS } from "./export/statsCsv.js";
export { statsToHtml } from "./export/statsHtml.js";
export type { StatsPageSubject } from "./export/statsHtml.js";
export { toBillingCsv as billingToCsv } from "./export/toBillingCsv.js";
export type { BillingCsvOptions } from "./export/toBillingCsv.js";
export { writeBillingXlsx, writeAccountXlsx, writeInvoicePack } from "./export/writeBillingXlsx.js";
export type { BillingXlsxOptions } from "./export/writeBillingXlsx.js";
export { FOCUS_COLUMNS } from "./export/focusRows.js";
export type { FocusOptions, FocusRow } from "./export/focusRows.js";
export { toFocusCsv as billingToFocusCsv } from "./export/toFocusCsv.js";
export { toBillingText as billingToText } from "./export/toBillingText.js";

// The dashboard (cloudunits serve)
export { serveDashboard, type Dashboard, type DashboardOptions } from "./serve/server.js";
export { writeFocusParquet } from "./export/writeFocusParquet.js";
export { writeStatements } from "./invoices/render/pdf/writeStatements.js";
export type { StatementTarget } from "./invoices/render/pdf/writeStatements.js";
export {
  loadStatementConfig,
  parseStatementConfig,
  checkIssuable,
  issueProblems,
  eInvoiceProblems,
  taxOf,
} from "./invoices/document/statementConfig.js";
export type {
  StatementConfig,
  StatementParty,
  StatementCustomer,
  TaxRule,
} from "./invoices/document/statementConfig.js";
// Customers across accounts: whose invoice an account is on (customers.<id>.accounts)
export {
  customerOf,
  customersOf,
  documentCustomerId,
  documentAccountIds,
  type Customer,
} from "./invoices/document/customers.js";

// Invoices as records: the issued document every renderer reads (docs/billing.md)
export { buildInvoiceDocument, creditNoteOf, lineDescription } from "./invoices/document/buildInvoiceDocument.js";
export type { DocumentRequest, CreditNoteRequest } from "./invoices/document/buildInvoiceDocument.js";
export type {
  InvoiceDocument,
  DraftDocument,
  DocumentKind,
  DocumentLine,
  DocumentSection,
  DocumentParty,
  DocumentBasis,
  TaxLine,
  TaxCategory,
  CustomerTax,
} from "./invoices/document/invoiceDocument.js";
export { renderUbl, PEPPOL_CUSTOMIZATION_ID, PEPPOL_PROFILE_ID } from "./invoices/render/ubl/renderUbl.js";
export { renderInvoicePdf } from "./invoices/render/pdf/invoicePdf.js";
export type { InvoicePdfOptions } from "./invoices/render/pdf/invoicePdf.js";
// The invoice register: store.issueInvoices, store.correctInvoice, store.invoiceRegister
export type { RegisterEntry } from "./invoices/register/readRegister.js";
export type { RegisterVerification } from "./invoices/register/registerChain.js";
export type { IssueRequest, IssueResult } from "./invoices/issueInvoices.js";
export type { CorrectRequest, CorrectResult } from "./invoices/correctInvoice.js";
// Partial credit notes: store.creditNote (docs/billing.md#partial-credit-notes)
export type { CreditRequest, CreditResult } from "./invoices/creditInvoice.js";
export type { CreditAsked, PartialCreditRequest } from "./invoices/document/partialCreditNote.js";
export { partialCreditNoteOf, lineName } from "./invoices/document/partialCreditNote.js";
export type { IssueFiles } from "./invoices/issueInputs.js";
export type { IssueStep } from "./invoices/recordDocuments.js";
export type { DocumentWritten, WrittenFile } from "./invoices/writeIssuedFiles.js";
export { registerToCsv, registerToJson, registerToText } from "./invoices/render/registerReport.js";
// Receivables: payment references, payments, status, delivery (docs/billing.md#receivables-payments-overdue-delivery)
export { paymentReferenceOf, structuredReferenceIn } from "./invoices/document/paymentReference.js";
export { readReceivables, overdueDocuments, receivableOf } from "./invoices/receivables.js";
/** Prepaid credit of contracts: each movement with its credit's balance after it (`invoices credits`). */
export { creditStatement, type CreditStatementLine } from "./invoices/contracts/creditBalances.js";
export type {
  CreditMovement,
  CreditMovementKind,
  RecordedCreditMovement,
} from "./invoices/register/creditMovements.js";
export type {
  ContractTerms,
  ContractDiscount,
  ContractCommitment,
  ContractCredit,
} from "./invoices/document/contractTerms.js";
export type { DocumentAllowance, DocumentCommitment, DocumentPrepaid } from "./invoices/document/invoiceDocument.js";
export type { Receivable, ReceivableEntry, ReceivableFacts, DocumentStatus } from "./invoices/receivables.js";
export { recordPayment } from "./invoices/recordPayment.js";
export type { PaymentRequest, PaymentOutcome, PaymentFit } from "./invoices/recordPayment.js";
export { importStatement } from "./invoices/importStatement.js";
export type { StatementImport, MatchedPayment, UnmatchedEntry } from "./invoices/importStatement.js";
export { readCamt053, MAX_STATEMENT_BYTES } from "./invoices/camtStatement.js";
export type { StatementEntry } from "./invoices/camtStatement.js";
export { sendDocuments } from "./invoices/sendDocuments.js";
export type { SendRequest, SendResult, NotSent } from "./invoices/sendDocuments.js";
export type { PaymentRecord, DeliveryRecord } from "./invoices/register/appendReceivables.js";
export type { RegisterListItem } from "./invoices/render/registerReport.js";

// Fetching archives from the live service
export { fetchConsumption, FETCH_DEFAULTS } from "./fetch/fetchConsumption.js";
export type {
  FetchAuth,
  JwtAuth,
  SessionAuth,
  FetchProgress,
  RequestPolicy,
  FetchConsumptionOptions,
  FetchConsumptionResult,
} from "./fetch/types.js";

// Keeping a warehouse current from the service
export { sync } from "./sync/sync.js";
export type { SyncOptions, SyncProgress, SyncReport, SyncedAccount } from "./sync/sync.js";
export type { SyncChunk } from "./sync/syncChunks.js";

// Reconciling our bill with the platform's billing/calculate
export { reconcile, DEFAULT_TOLERANCE } from "./reconcile/reconcile.js";
export type { ReconcileOptions, ReconcileReport, PlatformEnd } from "./reconcile/reconcile.js";
export type {
  BillComparison,
  ReconcileRow,
  ReconcileLevel,
  ReconcileIssue,
  ComparedCounts,
} from "./reconcile/compareBills.js";
export type { ReconciledUnit, Figures as ReconciledFigures } from "./reconcile/billTree.js";
export type { UnitFactor, SuggestedUnits } from "./reconcile/unitFactors.js";
export { reconcileToText, reconcileToCsv, reconcileToJson, reconcileVerdict } from "./export/reconcileReport.js";

// Before the month ends: forecasts, budgets and alerts, anomalies, top consumers
export { forecast, FORECAST_METHOD } from "./forecast/forecast.js";
export type {
  Forecast,
  ForecastRequest,
  EntityForecast,
  ForecastAmounts,
  ForecastCurrencyAmounts,
  ForecastQuantities,
  ForecastUnit,
} from "./forecast/forecast.js";
export { anomalies, ANOMALY_RULE } from "./forecast/anomalies.js";
export type { Anomaly, AnomalyReport, AnomalyRequest, AnomalyLevel, MachineChange } from "./forecast/anomalies.js";
export { alerts } from "./forecast/alerts.js";
export type {
  Alert,
  AlertReport,
  AlertsRequest,
  BudgetAlert,
  AmountBudgetAlert,
  QuantityBudgetAlert,
  AnomalyAlert,
  MachineAlert,
  WarehouseBehindAlert,
} from "./forecast/alerts.js";
export { BEHIND_AFTER_HOURS } from "./forecast/warehouseLag.js";
export type { WarehouseLag } from "./forecast/warehouseLag.js";
export { loadBudgets, parseBudgets } from "./forecast/budgets.js";
export type { Budget } from "./forecast/budgets.js";
export { notify } from "./forecast/notify.js";
export type { NotifyOptions } from "./forecast/notify.js";
export { top } from "./forecast/top.js";
export type { TopRequest, TopReport, TopRow, TopLevel, TopFigures } from "./forecast/top.js";
export type { Metric, EntityUsage } from "./forecast/usageTable.js";
export { forecastToText, forecastToJson } from "./export/forecastReport.js";
export { alertsToText, alertsToJson } from "./export/alertsReport.js";
export { topToText, topToJson, topToCsv } from "./export/topReport.js";

// Synthetic data
export { generateHours, GENERATE_DEFAULTS } from "./generate/generateHours.js";
export type { GenerateOptions } from "./generate/generateHours.js";
export { writeDataset } from "./generate/writeDataset.js";
export type { WriteDatasetOptions, WriteDatasetResult } from "./generate/writeDataset.js";

// Names of the previous release, kept for one more (docs/library.md, "Names")
import { toBillingCsv as billingToCsvOf } from "./export/toBillingCsv.js";
import { toBillingText as billingToTextOf } from "./export/toBillingText.js";
import { toFocusCsv as billingToFocusCsvOf } from "./export/toFocusCsv.js";
/** @deprecated Renamed {@link billingToCsv} (a text is named <subject>To<Format>); this name goes in the next release. */
export const toBillingCsv: typeof billingToCsvOf = billingToCsvOf;
/** @deprecated Renamed {@link billingToText}; this name goes in the next release. */
export const toBillingText: typeof billingToTextOf = billingToTextOf;
/** @deprecated Renamed {@link billingToFocusCsv}; this name goes in the next release. */
export const toFocusCsv: typeof billingToFocusCsvOf = billingToFocusCsvOf;
