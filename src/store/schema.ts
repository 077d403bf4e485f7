import { IMPOSSIBLE_VALUES_SQL, NULLABLE_MEASURES_SQL } from "../load/impossibleValues.js";
import { VM_FACT_NAMES, VM_FACTS } from "../load/vmFacts.js";

/**
 * The warehouse tables. Every hour is `hour_epoch`: epoch seconds UTC of the start of the
 * hour directory (docs/input.md), BIGINT, everywhere. Units are in column names. Float32 values
 * of the files are stored as DOUBLE (exactly), so SQL arithmetic is float64 throughout.
 *
 * Data tables are keyed by (account_id, hour_epoch, ...): replacing an account-hour deletes
 * its rows in every data table and appends the new ones, in one transaction with the
 * manifest.
 */
export { DATA_TABLES, type DataTable } from "../load/dataTables.js";

/**
 * The warehouse's schema version, in `warehouse_meta` (key `schema_version`). 2: the billing
 * facts (`machine_facts`, `gateway_facts`) are stored with every hour; a file without the row
 * is older (version 1: no facts) and is upgraded once when opened to write (`upgradeFacts`).
 */
export const SCHEMA_VERSION = 2;

export { FILE_STATUSES, type FileStatus } from "../load/loadManifest.js";

const SQL_TYPES = { str: "VARCHAR", f64: "DOUBLE", i32: "INTEGER" } as const;

/**
 * The billing facts of each machine-hour (every machine record but the gateway): what billing
 * reads of its record, disks and NICs (`VM_FACTS`, whose columns these are), made at ingest by
 * the facts builder (load/machineFacts.ts). Inputs to the unit formulas, never units: an
 * impossible value counts as 0.
 */
export const MACHINE_FACTS_SQL = `CREATE TABLE IF NOT EXISTS machine_facts (
  account_id     BIGINT NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  cloudspace_id  INTEGER NOT NULL,
  machine_id     INTEGER NOT NULL,
  type           VARCHAR NOT NULL,
${VM_FACT_NAMES.map((n) => `  ${VM_FACTS[n].column} ${SQL_TYPES[VM_FACTS[n].kind]} NOT NULL`).join(",\n")}
);`;

/**
 * Every DDL statement, idempotent (`IF NOT EXISTS`). The measures (vcpus, mem, sizes, IOPS,
 * limits, tx/rx) are nullable: NULL is an impossible value of the file (docs/warehouse.md), listed in
 * `impossible_values`; a database made before that has its columns made nullable here.
 */
export const SCHEMA_SQL = `
CREATE SEQUENCE IF NOT EXISTS files_seq;

-- The manifest: one row per file seen by ingest, loaded or not.
CREATE TABLE IF NOT EXISTS files (
  file_id        BIGINT PRIMARY KEY DEFAULT nextval('files_seq'),
  content_sha256 VARCHAR NOT NULL,     -- hex SHA-256 of the file's bytes
  source         VARCHAR NOT NULL,     -- path, or archive!entry
  account_id     BIGINT,               -- from the path; NULL when the path had none
  hour_epoch     BIGINT,               -- from the path
  size_bytes     BIGINT NOT NULL,
  loaded_at      TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
  status         VARCHAR NOT NULL,     -- see FILE_STATUSES
  reason         VARCHAR,              -- why rejected, superseded or a duplicate
  code           VARCHAR,              -- stable error code of a rejected file (CAPNP_..., ARCHIVE_..., CONFLICT)
  run_id         BIGINT                -- the load that recorded this row (runs.run_id)
);

-- One row per load (an ingest, or the in-memory load of a command): what it was given.
CREATE TABLE IF NOT EXISTS runs (
  run_id         BIGINT PRIMARY KEY,
  started_at     TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
  inputs         VARCHAR[] NOT NULL,   -- the input arguments as given
  ignored_paths  BIGINT NOT NULL DEFAULT 0, -- files whose path is not a consumption path
  finished       BOOLEAN NOT NULL DEFAULT false
);

-- One row per loaded account-hour: the hours an account has data for.
CREATE TABLE IF NOT EXISTS account_hours (
  account_id     BIGINT NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  root_account_id BIGINT,              -- Account.accountId of the file (NULL for CloudSpace files)
  cloudspace_count INTEGER NOT NULL,
  PRIMARY KEY (account_id, hour_epoch)
);

CREATE TABLE IF NOT EXISTS cloudspaces (
  account_id     BIGINT NOT NULL,      -- from the path
  hour_epoch     BIGINT NOT NULL,
  cloudspace_id  INTEGER NOT NULL,
  cs_account_id  INTEGER NOT NULL,     -- CloudSpace.accountId as written in the file
  state          VARCHAR NOT NULL
);

-- Machines that are not the gateway: type 'vm', and any other type (kept, reported by check).
CREATE TABLE IF NOT EXISTS machines (
  account_id     BIGINT NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  cloudspace_id  INTEGER NOT NULL,
  machine_id     INTEGER NOT NULL,
  type           VARCHAR NOT NULL,
  vcpus          INTEGER,
  cpu_minutes    DOUBLE,               -- CPU-minutes used in the hour
  mem_mb         DOUBLE,
  image_name     VARCHAR NOT NULL,
  status         VARCHAR NOT NULL
);

-- The cloud space's virtual gateway (type 'routeros'); never billed as a machine.
CREATE TABLE IF NOT EXISTS gateways (
  account_id     BIGINT NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  cloudspace_id  INTEGER NOT NULL,
  gateway_id     INTEGER NOT NULL,
  vcpus          INTEGER,
  cpu_minutes    DOUBLE,
  mem_mb         DOUBLE,
  image_name     VARCHAR NOT NULL,
  status         VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS disks (
  account_id     BIGINT NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  cloudspace_id  INTEGER NOT NULL,
  machine_id     INTEGER NOT NULL,
  disk_index     INTEGER NOT NULL,     -- position in the machine's list
  disk_id        INTEGER NOT NULL,
  size_gb        DOUBLE,
  iops_read      DOUBLE,               -- average IOPS in the hour
  iops_write     DOUBLE,
  iops_read_max  DOUBLE,
  iops_write_max DOUBLE,
  has_configured_iops BOOLEAN NOT NULL, -- false for files of the older schema
  cfg_total_bytes_sec DOUBLE,
  cfg_read_bytes_sec  DOUBLE,
  cfg_write_bytes_sec DOUBLE,
  cfg_total_iops_sec  DOUBLE,
  cfg_read_iops_sec   DOUBLE,
  cfg_write_iops_sec  DOUBLE,
  cfg_total_bytes_sec_max DOUBLE,
  cfg_read_bytes_sec_max  DOUBLE,
  cfg_write_bytes_sec_max DOUBLE,
  cfg_total_iops_sec_max  DOUBLE,
  cfg_read_iops_sec_max   DOUBLE,
  cfg_write_iops_sec_max  DOUBLE,
  cfg_size_iops_sec   DOUBLE
);

-- NICs of machines and of gateways (is_gateway), with their position in the owner's list.
CREATE TABLE IF NOT EXISTS nics (
  account_id     BIGINT NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  cloudspace_id  INTEGER NOT NULL,
  machine_id     INTEGER NOT NULL,     -- the VM's id, or the gateway's
  is_gateway     BOOLEAN NOT NULL,
  nic_index      INTEGER NOT NULL,     -- position in the owner's list (the stats "port")
  nic_id         INTEGER NOT NULL,     -- often 0 on the platform
  type           VARCHAR NOT NULL,     -- 'external', 'space', ...
  tx_bytes       DOUBLE,
  rx_bytes       DOUBLE
);

-- Names the service lists (accounts/list, cloudspaces/list), stored by \`sync\`. A names file wins over them.
CREATE TABLE IF NOT EXISTS entity_names (
  kind           VARCHAR NOT NULL,     -- 'account' or 'cloudspace'
  id             BIGINT NOT NULL,
  name           VARCHAR NOT NULL,
  account_id     BIGINT,               -- a cloud space's account
  listed_at      TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
  PRIMARY KEY (kind, id)
);

-- What \`sync\` has asked the service for, per account: every hour before synced_until_epoch.
CREATE TABLE IF NOT EXISTS sync_state (
  account_id     BIGINT PRIMARY KEY,
  synced_until_epoch BIGINT NOT NULL,  -- exclusive: the hours t < this were asked for at least once, and what came was ingested
  synced_at      TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
-- The invoice register (docs/billing.md#the-invoice-register): every invoice and credit note
-- issued from this warehouse. Append-only: a row is never changed or deleted; a correction is
-- new rows (a credit note, a new invoice, a row of register_corrections).
CREATE TABLE IF NOT EXISTS register_documents (
  entry          BIGINT NOT NULL UNIQUE, -- 1, 2, 3...: the order documents were issued in
  number         VARCHAR PRIMARY KEY,  -- as printed, from the config's pattern
  kind           VARCHAR NOT NULL,     -- 'invoice' or 'creditNote'
  issuer         VARCHAR NOT NULL,     -- whose sequence it is: the issuer's peppolId, else its legal name (a register made before: its VAT id)
  seq_year       INTEGER NOT NULL,     -- the year of the issue date
  seq            BIGINT NOT NULL,      -- its place in the sequence of (issuer, kind, year): 1, 2, 3... without a gap
  account_id     BIGINT NOT NULL,
  period_start_epoch BIGINT NOT NULL,  -- the billed period [start, end)
  period_end_epoch   BIGINT NOT NULL,
  issue_date     VARCHAR NOT NULL,     -- YYYY-MM-DD
  due_date       VARCHAR NOT NULL,
  currency       VARCHAR NOT NULL,
  net            VARCHAR NOT NULL,     -- decimal texts at the currency's decimals, negative on a credit note
  tax            VARCHAR NOT NULL,
  gross          VARCHAR NOT NULL,     -- net + tax: the amount due
  corrects       VARCHAR,              -- the invoice a credit note cancels, or a new invoice replaces
  reason         VARCHAR,              -- why (invoices correct --reason)
  prices_sha256  VARCHAR NOT NULL,     -- SHA-256 of the price list's bytes
  statement_sha256 VARCHAR NOT NULL,   -- SHA-256 of the statement config's bytes
  document       JSON NOT NULL,        -- the whole document as issued (invoices/document/invoiceDocument.ts), but its basis hours
  issued_at      TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
  UNIQUE (issuer, kind, seq_year, seq)
);
-- What each document was computed from: the account-hours billed and the SHA-256 of their files
-- (of the loaded files, sorted, space-separated when an hour has several).
CREATE TABLE IF NOT EXISTS register_basis_hours (
  number         VARCHAR NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  files_sha256   VARCHAR NOT NULL,
  PRIMARY KEY (number, hour_epoch)
);
-- The files of each document as issued, byte for byte: issuing again writes these.
CREATE TABLE IF NOT EXISTS register_files (
  name           VARCHAR PRIMARY KEY,  -- <number>.pdf, <number>.xml
  number         VARCHAR NOT NULL,
  sha256         VARCHAR NOT NULL,
  content        BLOB NOT NULL
);
-- A correction: the invoice corrected, the credit note cancelling it and the invoice replacing it.
CREATE TABLE IF NOT EXISTS register_corrections (
  corrected      VARCHAR PRIMARY KEY,
  credit_note    VARCHAR NOT NULL UNIQUE,
  replacement    VARCHAR NOT NULL UNIQUE,
  reason         VARCHAR NOT NULL,
  corrected_at   TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
-- Receivables (docs/billing.md#receivables-payments-overdue-delivery), append-only like the rest of the
-- register: a payment reversed is a new row with a negative amount; each delivery attempt is a row.
-- Written by invoices/register/appendReceivables.ts alone.
-- The structured payment reference of each invoice issued with one (the document's paymentReference).
CREATE TABLE IF NOT EXISTS register_payment_references (
  number         VARCHAR PRIMARY KEY,
  reference      VARCHAR NOT NULL,     -- RF... (ISO 11649) or +++123/4567/89012+++ (Belgian structured communication)
  scheme         VARCHAR NOT NULL      -- 'ISO11649' or 'BE'
);
-- A payment received for an invoice (or its reversal: a negative amount).
CREATE TABLE IF NOT EXISTS register_payments (
  entry          BIGINT NOT NULL UNIQUE, -- 1, 2, 3...: the order payments were recorded in
  number         VARCHAR NOT NULL,     -- the invoice paid
  amount         VARCHAR NOT NULL,     -- decimal text at the currency's decimals; negative reverses a payment
  currency       VARCHAR NOT NULL,
  paid_on        VARCHAR NOT NULL,     -- YYYY-MM-DD: --date, or the statement entry's booking date
  reference      VARCHAR,              -- --reference, or the remittance information of the statement entry
  source         VARCHAR NOT NULL,     -- 'manual' (invoices pay) or 'camt.053' (invoices payments)
  bank_reference VARCHAR UNIQUE,       -- the statement entry's reference: an entry is recorded once
  matched_by     VARCHAR,              -- 'reference' or 'number' (how a statement entry was matched)
  recorded_at    TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
-- Each attempt to deliver a document's UBL to an access point (invoices send).
CREATE TABLE IF NOT EXISTS register_deliveries (
  entry          BIGINT NOT NULL UNIQUE, -- 1, 2, 3...: the order of the attempts
  number         VARCHAR NOT NULL,
  endpoint       VARCHAR NOT NULL,     -- the URL posted to (origin and path)
  attempted_at   VARCHAR NOT NULL,     -- ISO 8601 UTC
  http_status    INTEGER,              -- NULL when no answer came (refused, timed out)
  message_id     VARCHAR,              -- the receiver's id of the message, when delivered
  error          VARCHAR,              -- why not, when not delivered
  delivered      BOOLEAN NOT NULL      -- a 2xx answer
);
-- Prepaid credit of contracts (docs/billing.md#prepaid-credit): each balance as movements, append-only;
-- a consumption is written in the transaction of the invoice consuming it. Written by invoices/register/creditMovements.ts alone.
CREATE TABLE IF NOT EXISTS register_credit_movements (
  entry          BIGINT NOT NULL UNIQUE, -- 1, 2, 3...: the order movements were recorded in
  customer_id    VARCHAR NOT NULL,
  credit_id      VARCHAR NOT NULL,     -- the contract's credits[].id
  movement       VARCHAR NOT NULL,     -- 'granted', 'consumed', 'givenBack', 'expired'
  amount         VARCHAR NOT NULL,     -- decimal text, tax included: positive grants and gives back, negative consumes and expires
  number         VARCHAR,              -- the invoice consuming it, the credit note giving it back
  day            VARCHAR NOT NULL,     -- YYYY-MM-DD: validFrom of a grant, the issue date of a document, validTo of an expiry
  valid_from     VARCHAR NOT NULL,
  valid_to       VARCHAR NOT NULL
);
-- The register's chain (docs/billing.md#the-chain, invoices/register/registerChain.ts): one link per record
-- (a document, a payment, a delivery attempt), in the order they were recorded. A link keeps the SHA-256 of each field of its
-- record and its chain value, SHA-256 of the previous link's of the same chain and of its fields.
CREATE TABLE IF NOT EXISTS register_chain (
  link           BIGINT PRIMARY KEY,   -- 1, 2, 3...: across every chain, without a gap
  kind           VARCHAR NOT NULL,     -- what is chained: 'document', 'payment', 'delivery'
  key            VARCHAR NOT NULL,     -- which record of its kind: a document's number, a payment's or delivery attempt's entry
  chain          VARCHAR NOT NULL,     -- its chain: a document's numbering sequence (issuer, kind, year), 'payments', 'delivery attempts'
  place          BIGINT,               -- its place in the chain's sequence (a document's seq, a payment's entry), when it has one
  fields         JSON NOT NULL,        -- the SHA-256 of each field of the record as recorded, by name
  chain_sha256   VARCHAR NOT NULL,     -- SHA-256 of the previous link's chain_sha256 (of the same chain) and of its fields
  UNIQUE (kind, key)
);
-- The lines and tax lines of the register's documents, read from their JSON: for SQL.
CREATE OR REPLACE VIEW register_lines AS
  SELECT number, unnest(line) FROM (
    SELECT number, unnest(from_json(document->'lines', '[{"unit":"VARCHAR","description":"VARCHAR","start":"BIGINT","end":"BIGINT","quantity":"VARCHAR","quantityUnit":"VARCHAR","unitPrice":"VARCHAR","priceUnit":"VARCHAR","net":"VARCHAR","taxCategory":"VARCHAR","taxRatePercent":"VARCHAR"}]')) AS line
    FROM register_documents);
CREATE OR REPLACE VIEW register_taxes AS
  SELECT number, unnest(tax) FROM (
    SELECT number, unnest(from_json(document->'taxes', '[{"category":"VARCHAR","ratePercent":"VARCHAR","base":"VARCHAR","amount":"VARCHAR","exemptionReason":"VARCHAR"}]')) AS tax
    FROM register_documents);

-- Where the account's syncs began (hours before it are never asked again), and how its last sync ended.
ALTER TABLE sync_state ADD COLUMN IF NOT EXISTS synced_from_epoch BIGINT;
ALTER TABLE sync_state ADD COLUMN IF NOT EXISTS last_run_at TIMESTAMPTZ;
ALTER TABLE sync_state ADD COLUMN IF NOT EXISTS last_result VARCHAR;   -- 'synced', 'up-to-date' or 'failed'
ALTER TABLE sync_state ADD COLUMN IF NOT EXISTS last_error VARCHAR;    -- why it failed
-- The windows of the account's last sync (status tells hours still asked on every run from older ones),
-- and the end of the hours of the last run that asked again for the missing hours older than its look-back.
ALTER TABLE sync_state ADD COLUMN IF NOT EXISTS look_back_hours INTEGER;
ALTER TABLE sync_state ADD COLUMN IF NOT EXISTS retention_hours INTEGER;
ALTER TABLE sync_state ADD COLUMN IF NOT EXISTS missing_asked_until_epoch BIGINT;

-- Hours \`sync\` got after first asking for them: 'late' (the platform wrote it after an earlier
-- sync asked for it), 'rewritten' (the platform's file changed; the held one was replaced);
-- 'lost': an hour never written that left the platform's retention, given up for good; and
-- 'accepted': a lost hour an operator accepted (\`status --accept-lost\`), no longer alarming.
CREATE TABLE IF NOT EXISTS sync_log (
  account_id     BIGINT NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  event          VARCHAR NOT NULL,
  logged_at      TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
-- Each run of \`sync\` as it plans: its process (host, PID and start time, so a live run is told
-- from one that was killed or stopped) and the accounts it syncs. A run whose process is gone
-- without recording an account's result did not finish: \`status\` says that sync failed.
CREATE TABLE IF NOT EXISTS sync_runs (
  run_id         BIGINT PRIMARY KEY,
  host           VARCHAR NOT NULL,
  pid            BIGINT NOT NULL,
  process_start  VARCHAR,
  started_at     TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
  account_ids    BIGINT[] NOT NULL
);
-- The hours [start_epoch, end_epoch) of an account a running sync is downloading, until it
-- records the account's result: a sync that starts meanwhile does not ask them again.
CREATE TABLE IF NOT EXISTS sync_claims (
  run_id         BIGINT NOT NULL,
  account_id     BIGINT NOT NULL,
  start_epoch    BIGINT NOT NULL,
  end_epoch      BIGINT NOT NULL
);
${MACHINE_FACTS_SQL}

-- The billing facts of each cloud-space-hour with a gateway: its gateways' external NICs.
CREATE TABLE IF NOT EXISTS gateway_facts (
  account_id     BIGINT NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  cloudspace_id  INTEGER NOT NULL,
  external_nics  INTEGER NOT NULL,
  external_bytes DOUBLE NOT NULL
);

-- What the file is: 'schema_version' (see SCHEMA_VERSION), 'facts_external_nic_type', 'facts_columns' (machine_facts' facts), 'schema_sql' (the SHA-256 of the DDL last run on it).
CREATE TABLE IF NOT EXISTS warehouse_meta (
  key            VARCHAR PRIMARY KEY,
  value          VARCHAR NOT NULL
);
${IMPOSSIBLE_VALUES_SQL}
${NULLABLE_MEASURES_SQL}
`;
