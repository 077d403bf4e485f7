/**
 * A float64 as plain decimal text with `.` decimals and no exponent, with the digits of its
 * shortest round-trip form (`1e-7` → `0.0000001`, `1.5e21` → `1500000000000000000000`).
 */
export function plainNumber(value: number): string {
  const text = String(value);
  if (!text.includes("e")) return text; // most numbers: no exponent to write out
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const [, sign, lead, rest = "", exp] = m;
  const digits = lead! + rest;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
