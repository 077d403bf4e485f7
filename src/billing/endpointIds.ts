/**
 * The checks Peppol's rules make of an electronic address's id, by EAS scheme: a receiving access
 * point rejects an e-invoice whose id fails one (PEPPOL-COMMON-R043 for Belgium's 0208, fatal in
 * BIS Billing 3.0.21 and 3.1.0). A scheme is an entry here; schemes without one are taken as given.
 */
export const ENDPOINT_ID_CHECKS: Readonly<Record<string, { name: string; check: (id: string) => string | undefined }>> = {
  "0208": { name: "Belgian enterprise number", check: (id) => belgianEnterpriseNumber(id, "") },
  "9925": { name: "Belgian VAT number", check: (id) => belgianEnterpriseNumber(id, "BE") },
};

/**
 * What is wrong with `id` as an electronic address of `scheme`, in a sentence, or undefined when
 * nothing is (or the scheme has no check here).
 */
export function checkEndpointId(scheme: string, id: string): string | undefined {
  const entry = ENDPOINT_ID_CHECKS[scheme];
  const problem = entry?.check(id);
  return problem === undefined ? undefined : `not a ${entry!.name} (scheme ${scheme}): ${problem}`;
}

/**
 * A Belgian enterprise number after `prefix`: 10 digits whose last two are 97 − (the first 8 mod
 * 97) (`0123456749`; VAT numbers are `BE` and the same 10 digits).
 */
function belgianEnterpriseNumber(id: string, prefix: string): string | undefined {
  const example = `${prefix}0123456749`;
  if (!id.startsWith(prefix) || !/^\d{10}$/.test(id.slice(prefix.length))) return `expected ${prefix ? `${prefix} and ` : ""}10 digits, e.g. ${example}`;
  const digits = id.slice(prefix.length);
  const check = 97 - (Number(digits.slice(0, 8)) % 97);
  if (Number(digits.slice(8)) !== check) return `its check digits are ${digits.slice(8)}, and 97 − (${digits.slice(0, 8)} mod 97) is ${String(check).padStart(2, "0")}`;
  return undefined;
}
