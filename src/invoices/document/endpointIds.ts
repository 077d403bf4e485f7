/**
 * The checks Peppol's rules make of an electronic address's id, by EAS scheme: a receiving access
 * point rejects an e-invoice whose id fails one (PEPPOL-COMMON-R043 for Belgium's 0208, fatal in
 * BIS Billing 3.0.21 and 3.1.0; R040–R053 for the others here, each fatal). A scheme is an entry here,
 * written as the rule computes it; schemes without one (Italy's 0201, 0210, 0211 among them) are taken as given.
 */
export const ENDPOINT_ID_CHECKS: Readonly<Record<string, { name: string; check: (id: string) => string | undefined }>> =
  {
    "0208": { name: "Belgian enterprise number", check: (id) => belgianEnterpriseNumber(id, "") },
    "9925": { name: "Belgian VAT number", check: (id) => belgianEnterpriseNumber(id, "BE") },
    "0088": { name: "GLN", check: (id) => gs1CheckDigit(id) }, // PEPPOL-COMMON-R040
    "0192": { name: "Norwegian organisation number", check: (id) => norwegianOrganisationNumber(id) }, // R041
    "0184": {
      name: "Danish CVR number",
      check: (id) => (/^(DK)?\d{8}$/.test(id) ? undefined : "expected 8 digits, or DK and 8 digits, e.g. DK12345678"),
    }, // R042
    "0096": { name: "Danish P number", check: (id) => (/^\d{10}$/.test(id) ? undefined : "expected 10 digits") }, // R052
    "0198": {
      name: "Danish ERST number",
      check: (id) => (/^DK\d{8}$/.test(id) ? undefined : "expected DK and 8 digits, e.g. DK12345678"),
    }, // R053
    "0007": { name: "Swedish organisation number", check: (id) => swedishOrganisationNumber(id) }, // R049
    "0151": { name: "Australian Business Number", check: (id) => australianBusinessNumber(id) }, // R050
  };

/**
 * What is wrong with `id` as an electronic address of `scheme`, in a sentence, or undefined when
 * nothing is (or the scheme has no check here).
 */
export function checkEndpointId(scheme: string, id: string): string | undefined {
  const entry = ENDPOINT_ID_CHECKS[scheme];
  const problem = entry?.check(id);
  return problem === undefined
    ? undefined
    : `not ${/^[AEIOU]/.test(entry!.name) ? "an" : "a"} ${entry!.name} (scheme ${scheme}): ${problem}`;
}

/**
 * A Belgian enterprise number after `prefix`: 10 digits whose last two are 97 − (the first 8 mod
 * 97) (`0123456749`; VAT numbers are `BE` and the same 10 digits).
 */
function belgianEnterpriseNumber(id: string, prefix: string): string | undefined {
  const example = `${prefix}0123456749`;
  if (!id.startsWith(prefix) || !/^\d{10}$/.test(id.slice(prefix.length)))
    return `expected ${prefix ? `${prefix} and ` : ""}10 digits, e.g. ${example}`;
  const digits = id.slice(prefix.length);
  const check = 97 - (Number(digits.slice(0, 8)) % 97);
  if (Number(digits.slice(8)) !== check)
    return `its check digits are ${digits.slice(8)}, and 97 − (${digits.slice(0, 8)} mod 97) is ${String(check).padStart(2, "0")}`;
  return undefined;
}

/** GS1's check digit (a GLN, 0088): the last digit is (10 − the weighted sum mod 10) mod 10, weights 3, 1, 3… from the right. */
function gs1CheckDigit(id: string): string | undefined {
  if (!/^\d{2,}$/.test(id)) return "expected digits only, e.g. 7300010000001";
  const body = id.slice(0, -1);
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  const check = (10 - (sum % 10)) % 10;
  return Number(id.at(-1)) === check ? undefined : `its check digit is ${id.at(-1)}, and GS1's is ${check}`;
}

/** A Norwegian organisation number (0192): 9 digits, the last (11 − the weighted sum mod 11) mod 11, weights 2–7 from the right. */
function norwegianOrganisationNumber(id: string): string | undefined {
  if (!/^\d{9}$/.test(id) || Number(id) === 0) return "expected 9 digits, e.g. 974760673";
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(id[7 - i]) * ((i % 6) + 2);
  const check = (11 - (sum % 11)) % 11;
  return Number(id[8]) === check ? undefined : `its check digit is ${id[8]}, and mod 11 gives ${check}`;
}

/** A Swedish organisation number (0007): 10 digits, the last Luhn's check digit of the first 9. */
function swedishOrganisationNumber(id: string): string | undefined {
  if (!/^\d{10}$/.test(id)) return "expected 10 digits, e.g. 5560360793";
  let sum = 0;
  for (let pos = 1; pos <= 9; pos++) {
    const digit = Number(id[9 - pos]);
    sum += pos % 2 === 1 ? ((digit * 2) % 10) + Math.floor((digit * 2) / 10) : digit;
  }
  const check = (10 - (sum % 10)) % 10;
  return Number(id[9]) === check ? undefined : `its check digit is ${id[9]}, and Luhn's is ${check}`;
}

/** An Australian Business Number (0151): 11 digits whose weighted sum (the first less 1) is a multiple of 89. */
function australianBusinessNumber(id: string): string | undefined {
  if (!/^\d{11}$/.test(id)) return "expected 11 digits, e.g. 51824753556";
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  const sum = weights.reduce((total, weight, i) => total + (Number(id[i]) - (i === 0 ? 1 : 0)) * weight, 0);
  return sum % 89 === 0 ? undefined : `its weighted sum ${sum} is not a multiple of 89`;
}
