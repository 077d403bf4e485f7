import { XMLParser } from "fast-xml-parser";
import { BadFileError } from "../base/errors.js";

/** The largest bank statement read, in bytes (a statement of 10,000 entries is about 10 MB). */
export const MAX_STATEMENT_BYTES = 64 * 1024 * 1024;

/** A credit or debit of a camt.053 statement: one entry, or one transaction of a batched entry. */
export interface StatementEntry {
  /** The key that makes it recorded once: the entry's bank reference (`AcctSvcrRef`, else `NtryRef`); `/n` for the n-th transaction of a batch. */
  bankReference: string | undefined;
  /** Decimal text as written, positive. */
  amount: string;
  currency: string;
  /** CRDT (money received) or DBIT. */
  credit: boolean;
  /** A reversal of an earlier entry (`RvslInd`). */
  reversal: boolean;
  /** Booked (`Sts` BOOK, or none given), not pending. */
  booked: boolean;
  /** `YYYY-MM-DD`: the booking date (else the value date). */
  date: string;
  /** Structured creditor references (`Strd/CdtrRefInf/Ref`). */
  references: string[];
  /** Unstructured remittance information (`Ustrd`) and the entry's additional information. */
  texts: string[];
}

type Node = Record<string, unknown>;

/** The elements that repeat, kept as arrays even when one is there. */
const LISTS = new Set(["Stmt", "Ntry", "NtryDtls", "TxDtls", "Ustrd", "Strd", "AddtlNtryInf"]);

const text = (value: unknown): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "object") return text((value as Node)["#text"]);
  return String(value).trim();
};
const node = (value: unknown): Node => (value !== null && typeof value === "object" ? (value as Node) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

function dateOf(entry: Node): string {
  for (const key of ["BookgDt", "ValDt"]) {
    const d = node(entry[key]);
    const value = text(d.Dt) ?? text(d.DtTm);
    if (value) return value.slice(0, 10);
  }
  return "";
}

function remittance(tx: Node): { references: string[]; texts: string[] } {
  const info = node(tx.RmtInf);
  return {
    references: list(info.Strd)
      .map((s) => text(node(node(s).CdtrRefInf).Ref))
      .filter((r): r is string => !!r),
    texts: list(info.Ustrd)
      .map(text)
      .filter((t): t is string => !!t),
  };
}

/** One entry as the credits and debits it holds: itself, or each transaction of a batch with its own amount. */
function entriesOf(entry: Node): StatementEntry[] {
  const amount = node(entry.Amt);
  const key = text(entry.AcctSvcrRef) ?? text(entry.NtryRef);
  const status = text(node(entry.Sts).Cd) ?? text(entry.Sts);
  const base = {
    credit: text(entry.CdtDbtInd) === "CRDT",
    reversal: text(entry.RvslInd) === "true",
    booked: status === undefined || status === "BOOK",
    date: dateOf(entry),
  };
  const extra = list(entry.AddtlNtryInf)
    .map(text)
    .filter((t): t is string => !!t);
  const txs = list(entry.NtryDtls)
    .flatMap((d) => list(node(d).TxDtls))
    .map(node);
  const own = (tx: Node) =>
    node(tx.Amt)["#text"] !== undefined ? node(tx.Amt) : node(node(node(tx.AmtDtls).TxAmt).Amt);
  if (txs.length > 1 && txs.every((tx) => text(own(tx)) !== undefined)) {
    return txs.map((tx, i) => {
      const r = remittance(tx);
      return {
        ...base,
        bankReference: text(node(tx.Refs).AcctSvcrRef) ?? (key === undefined ? undefined : `${key}/${i + 1}`),
        amount: text(own(tx))!,
        currency: String(own(tx)["@_Ccy"] ?? amount["@_Ccy"] ?? ""),
        references: r.references,
        texts: [...r.texts, ...extra],
      };
    });
  }
  const r = txs.map(remittance);
  return [
    {
      ...base,
      bankReference: key,
      amount: text(amount) ?? "",
      currency: String(amount["@_Ccy"] ?? ""),
      references: r.flatMap((x) => x.references),
      texts: [...r.flatMap((x) => x.texts), ...extra],
    },
  ];
}

/**
 * The credits and debits of an ISO 20022 camt.053 bank-to-customer statement (any version:
 * namespaces are not read), in the order written. A bank statement has no document type
 * declaration: one (where entity definitions live) is refused unread, so no entity is ever
 * expanded, as is a file over `MAX_STATEMENT_BYTES`. Throws a BadFileError (exit 3) naming the
 * file for what is not such a statement.
 */
export function readCamt053(bytes: Uint8Array, file: string): StatementEntry[] {
  if (bytes.length > MAX_STATEMENT_BYTES) {
    throw new BadFileError(
      "CAMT_TOO_LARGE",
      file,
      `${bytes.length} bytes: a bank statement is read up to ${MAX_STATEMENT_BYTES} bytes (split it by day)`,
    );
  }
  const xml = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8");
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw new BadFileError(
      "CAMT_DOCTYPE",
      file,
      "has a document type declaration (<!DOCTYPE or <!ENTITY): a camt.053 statement has none, and its entities are never expanded",
    );
  }
  let parsed: Node;
  try {
    parsed = new XMLParser({
      ignoreAttributes: false,
      removeNSPrefix: true,
      parseTagValue: false,
      parseAttributeValue: false,
      trimValues: true,
      processEntities: true,
      htmlEntities: false,
      isArray: (name) => LISTS.has(name),
    }).parse(xml, true) as Node;
  } catch (error) {
    throw new BadFileError("CAMT_MALFORMED", file, `not well-formed XML: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const statement = node(node(parsed.Document).BkToCstmrStmt);
  if (Object.keys(statement).length === 0)
    throw new BadFileError(
      "CAMT_NOT_STATEMENT",
      file,
      "no Document/BkToCstmrStmt: not a camt.053 bank-to-customer statement",
    );
  return list(statement.Stmt)
    .flatMap((s) => list(node(s).Ntry))
    .map(node)
    .flatMap(entriesOf);
}
