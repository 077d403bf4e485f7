/** A camt.053 entry to write: a credit (default) or a debit, its bank reference, amount, date and remittance. */
export interface CamtEntry {
  ref: string;
  amount: string;
  currency?: string;
  date?: string;
  debit?: boolean;
  /** Unstructured remittance text (Ustrd). */
  text?: string;
  /** A structured creditor reference (Strd/CdtrRefInf/Ref). */
  reference?: string;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

/** An ISO 20022 camt.053.001.08 bank-to-customer statement of these entries, as a bank writes it. */
export function camtStatement(entries: readonly CamtEntry[], id = "STMT-2026-12-10"): string {
  const ntry = entries
    .map(
      (e) => `      <Ntry>
        <Amt Ccy="${e.currency ?? "EUR"}">${e.amount}</Amt>
        <CdtDbtInd>${e.debit ? "DBIT" : "CRDT"}</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${e.date ?? "2026-12-10"}</Dt></BookgDt>
        <ValDt><Dt>${e.date ?? "2026-12-10"}</Dt></ValDt>
        <AcctSvcrRef>${esc(e.ref)}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
          <RltdPties><Dbtr><Pty><Nm>Customer</Nm></Pty></Dbtr></RltdPties>
          <RmtInf>${e.text === undefined ? "" : `<Ustrd>${esc(e.text)}</Ustrd>`}${e.reference === undefined ? "" : `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>${esc(e.reference)}</Ref></CdtrRefInf></Strd>`}</RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${id}</MsgId><CreDtTm>2026-12-10T18:00:00Z</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${id}</Id>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
${ntry}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
}
