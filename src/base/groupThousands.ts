import type { Exact } from "../billing/exact.js";

/** Groups the integer digits of a plain decimal text (or an amount's) by thousands: `-1234567.5` → `-1,234,567.5`. */
export function groupThousands(value: string | Exact): string {
  const [whole, fraction] = String(value).split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
