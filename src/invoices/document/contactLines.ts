/**
 * What the lines of a party's `contact` hold: an e-mail address and a telephone number, each
 * written as people write them, with or without a label (`Tel. +49 40 1234567`,
 * `+32 (0)2 555 12 12`, `E-Mail: billing@example.com`). The statement config's checks and the UBL
 * contact read them here, so a line recognised by one is recognised by the other.
 */

/** A label before a telephone number: `Tel.`, `Tel:`, `Phone`, `Telefon`, `Téléphone`, `T`. */
const PHONE_LABEL = /^(?:tel(?:ephone|efon)?|t[ée]l[ée]phone|phone|fon|t)\.?\s*:?\s*/i;
/** A telephone number: an optional `+`, a digit, then digits, spaces and `( ) . / -`, at least 6 digits in all. */
const PHONE = /^\+?\d[\d\s().\/-]*\d$/;
const EMAIL_LABEL = /^(?:e-?mail|mail)\s*:?\s*/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The telephone number of a contact line (its label dropped), or undefined when the line is not one. */
export function telephoneOf(line: string): string | undefined {
  const number = line.trim().replace(PHONE_LABEL, "");
  if (!PHONE.test(number) || number.replace(/\D/g, "").length < 6) return undefined;
  return number;
}

/** The e-mail address of a contact line (its label dropped), or undefined when the line is not one. */
export function emailOf(line: string): string | undefined {
  const address = line.trim().replace(EMAIL_LABEL, "");
  return EMAIL.test(address) ? address : undefined;
}
