import { createHash } from "node:crypto";

/**
 * The structured payment reference of an invoice, derived from its number alone (so issuing
 * again gives the same one): for a Belgian issuer the Belgian structured communication
 * (`+++123/4567/89012+++`: ten digits and their check digits, mod 97), for any other the ISO
 * 11649 creditor reference (`RF` + two check digits + the number's letters and digits, at most
 * 21 of them). A number with more than 10 digits (Belgian) or 21 letters and digits (RF) is
 * first reduced to a SHA-256 of it, as digits or base 36.
 */
export function paymentReferenceOf(number: string, issuerCountry: string): string {
  return issuerCountry.toUpperCase() === "BE" ? belgianReference(number) : creditorReference(number);
}

/** The number's letters and digits, upper case; when longer than `limit`, the first `limit` characters of its SHA-256 in `radix`. */
function referenceBody(number: string, pattern: RegExp, limit: number, radix: 10 | 36): string {
  const kept = (number.toUpperCase().match(pattern) ?? []).join("");
  if (kept.length <= limit) return kept;
  return BigInt(`0x${createHash("sha256").update(number).digest("hex")}`)
    .toString(radix)
    .toUpperCase()
    .slice(0, limit);
}

/** `n mod 97` of a long decimal text. */
function mod97(digits: string): number {
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest;
}

/** Letters as ISO 7064's numbers (A = 10 … Z = 35). */
const asDigits = (text: string) => [...text].map((c) => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55))).join("");

/** ISO 11649: `RF` + check digits + the body (1 to 21 letters and digits). */
export function creditorReference(number: string): string {
  const body = referenceBody(number, /[A-Z0-9]/g, 21, 36) || "0";
  const check = 98 - mod97(asDigits(`${body}RF00`));
  return `RF${String(check).padStart(2, "0")}${body}`;
}

/** The Belgian structured communication: ten digits of the number, then their mod 97 (97 for 0), as `+++ddd/dddd/ddddd+++`. */
export function belgianReference(number: string): string {
  const base = referenceBody(number, /\d/g, 10, 10).padStart(10, "0");
  const check = mod97(base) || 97;
  const digits = `${base}${String(check).padStart(2, "0")}`;
  return `+++${digits.slice(0, 3)}/${digits.slice(3, 7)}/${digits.slice(7)}+++`;
}

/**
 * The structured reference a text holds, as `paymentReferenceOf` writes it, when it holds a valid
 * one (check digits right): an `RF` reference (spaces allowed) or a Belgian structured
 * communication (`+++…+++`, `***…***` or its twelve digits alone). Undefined otherwise.
 */
export function structuredReferenceIn(text: string): string | undefined {
  const belgian = /(?:\+{3}|\*{3})\s*(\d{3})\s*\/\s*(\d{4})\s*\/\s*(\d{5})\s*(?:\+{3}|\*{3})/.exec(text);
  if (belgian) {
    const digits = belgian.slice(1, 4).join("");
    if ((mod97(digits.slice(0, 10)) || 97) === Number(digits.slice(10)))
      return `+++${belgian[1]}/${belgian[2]}/${belgian[3]}+++`;
  }
  // the reference may run on into the next word ("RF18 5390 0754 7034 THANKS"): the longest valid start of it
  for (const m of text.toUpperCase().matchAll(/\bRF\s?\d{2}(?:\s?[A-Z0-9]){1,21}/g)) {
    const compact = m[0].replace(/\s/g, "");
    for (let end = compact.length; end > 4; end--) {
      const candidate = compact.slice(0, end);
      if (mod97(asDigits(`${candidate.slice(4)}${candidate.slice(0, 4)}`)) === 1) return candidate;
    }
  }
  if (/^\d{12}$/.test(text.trim())) {
    const digits = text.trim();
    if ((mod97(digits.slice(0, 10)) || 97) === Number(digits.slice(10)))
      return `+++${digits.slice(0, 3)}/${digits.slice(3, 7)}/${digits.slice(7)}+++`;
  }
  return undefined;
}
