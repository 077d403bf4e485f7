import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../base/errors.js";
import type { DocumentKind, InvoiceDocument } from "./document/invoiceDocument.js";
import { formatStatementNumber, type StatementConfig } from "./document/statementConfig.js";
import {
  appendToRegister,
  type CorrectionRecord,
  type IssuedFile,
  type RegisterRecord,
} from "./register/appendToRegister.js";
import { numbersTaken, sequenceEnd } from "./register/documentSequence.js";
import { documentFiles } from "./documentFiles.js";
import { checkIssuedFiles } from "./writeIssuedFiles.js";
import { appendCreditMovements, readCreditMovements } from "./register/creditMovements.js";
import { CreditLedger } from "./contracts/prepaidCredits.js";

/** The steps of issuing, told to `onStep` as each is done (a progress callback; tests kill a run at each). */
export type IssueStep = "computed" | "numbered" | "rendered" | "recorded" | "committed" | "file";

/** A document to number: its kind, account, whose sequence, and how it is made once its number is known. */
export interface PlannedDocument {
  kind: DocumentKind;
  accountId: number;
  /** Whose sequence: the issuer's identity (see `issuerIdentity`). */
  issuer: string;
  make(number: string): InvoiceDocument;
}

/** How planned documents are numbered, recorded and checked against `out`. */
export interface RecordOptions {
  config: StatementConfig;
  issueDate: string;
  /** The folder the files will be written to: a file there of a new document's name with other bytes refuses the run. */
  out: string;
  /** Given the documents' numbers in order, the correction they make (a credit note and its replacement). */
  correction?: (numbers: string[]) => CorrectionRecord;
  onStep?: (step: IssueStep) => void;
  /** Told what a file could not hold as written (a character no font of the PDF has). */
  onWarning?: (message: string) => void;
}

/** A document recorded: the document and its files. */
export interface RecordedDocument {
  document: InvoiceDocument;
  files: IssuedFile[];
}

/**
 * Numbers documents and records them in the register, in one transaction: each gets the next
 * place of its sequence (issuer, kind, year of the issue date; the config's pattern of its kind)
 * in the order given, is made and rendered, and every row is committed together, or nothing
 * is. The warehouse is open to write, which DuckDB grants one process at a time, so two runs
 * never number at once: the second sees what the first committed. Refused (nothing recorded):
 * an issue date before the last one of a sequence (numbers go with dates), a pattern that would
 * give a number already given, a file in `out` of a new name with other bytes.
 */
export async function recordDocuments(
  connection: DuckDBConnection,
  planned: readonly PlannedDocument[],
  options: RecordOptions,
): Promise<RecordedDocument[]> {
  if (planned.length === 0) return [];
  await connection.run("BEGIN TRANSACTION");
  try {
    const numbered = await numberDocuments(connection, planned, options);
    options.onStep?.("numbered");
    const recorded: RecordedDocument[] = [];
    // prepaid credit consumed and given back in this transaction, with the documents
    const ledger = new CreditLedger(await readCreditMovements(connection));
    for (const [i, plan] of planned.entries()) {
      const document = ledger.record(plan.make(numbered[i]!.number), options.config);
      recorded.push({ document, files: await documentFiles(document, options.onWarning) });
    }
    options.onStep?.("rendered");
    await checkIssuedFiles(
      options.out,
      recorded.flatMap((r) => r.files),
    );
    const records: RegisterRecord[] = recorded.map((r, i) => ({
      ...r,
      issuer: planned[i]!.issuer,
      seq: numbered[i]!.seq,
    }));
    await appendToRegister(connection, records, options.correction?.(numbered.map((n) => n.number)));
    await appendCreditMovements(connection, ledger.made);
    options.onStep?.("recorded");
    await connection.run("COMMIT");
    options.onStep?.("committed");
    return recorded;
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}

/**
 * Refuses numbering patterns without `{yyyy}`: each year starts its sequences again at 1, so
 * such a pattern would give last year's numbers again.
 */
export function checkNumbering(config: StatementConfig): void {
  for (const [key, pattern] of [
    ["pattern", config.numberPattern],
    ["creditNotePattern", config.creditNotePattern],
  ] as const) {
    if (!pattern.includes("{yyyy}")) {
      throw new UsageError(
        `${config.source}: numbering.${key} ${JSON.stringify(pattern)} has no {yyyy}: a sequence starts again at 1 each year, ` +
          `so its numbers would repeat (e.g. ${key === "pattern" ? "INV" : "CN"}-{yyyy}-{seq:05})`,
        { code: "STATEMENT_CONFIG" },
      );
    }
  }
}

/** The number and place of each planned document, in its sequence, checked against the register. */
async function numberDocuments(
  connection: DuckDBConnection,
  planned: readonly PlannedDocument[],
  { config, issueDate }: RecordOptions,
): Promise<{ number: string; seq: number }[]> {
  const year = Number(issueDate.slice(0, 4));
  const next = new Map<string, number>();
  const out: { number: string; seq: number }[] = [];
  for (const plan of planned) {
    const key = JSON.stringify([plan.issuer, plan.kind, year]);
    let seq = next.get(key);
    if (seq === undefined) {
      const end = await sequenceEnd(connection, { issuer: plan.issuer, kind: plan.kind, year });
      if (end.issueDate !== undefined && end.issueDate > issueDate) {
        throw new UsageError(
          `issue date ${issueDate} is before ${end.issueDate}, the date of the last ${plan.kind === "invoice" ? "invoice" : "credit note"} numbered in ${year}: ` +
            "numbers follow the dates they are given on, so give issueDate: " +
            end.issueDate +
            " or later",
          { code: "ISSUE_DATE_ORDER" },
        );
      }
      seq = end.seq + 1;
    }
    next.set(key, seq + 1);
    const pattern = plan.kind === "invoice" ? config.numberPattern : config.creditNotePattern;
    out.push({ number: formatStatementNumber(pattern, { seq, issueDate, accountId: plan.accountId }), seq });
  }
  const numbers = out.map((n) => n.number);
  const repeated = numbers.filter((n, i) => numbers.indexOf(n) !== i);
  const taken = [...new Set([...repeated, ...(await numbersTaken(connection, numbers))])];
  if (taken.length > 0) {
    throw new UsageError(
      `${config.source}: the numbering patterns would give ${taken.join(", ")}, already given: a number is never given twice ` +
        "(give each sequence a pattern of its own, with {yyyy} and {seq}; nothing was issued)",
      { code: "NUMBER_TAKEN" },
    );
  }
  return out;
}
