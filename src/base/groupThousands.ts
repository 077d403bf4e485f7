/** Groups the integer digits of a plain decimal text by thousands: `-1234567.5` → `-1,234,567.5`. */
export function groupThousands(text: string): string {
  const [whole, fraction] = text.split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
