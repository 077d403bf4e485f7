/**
 * The relative path of an account-hour's directory: `<accountId>/<year>/<month>/<day>/<hour>`
 * in UTC, month, day and hour unpadded as the platform writes them (`padded`: zero-padded to
 * two digits, which readers accept too; default false) (docs/input.md).
 */
export function hourPath(accountId: number, hourEpoch: number, padded = false): string {
  const t = new Date(hourEpoch * 1000);
  const two = (n: number) => (padded ? String(n).padStart(2, "0") : String(n));
  return `${accountId}/${t.getUTCFullYear()}/${two(t.getUTCMonth() + 1)}/${two(t.getUTCDate())}/${two(t.getUTCHours())}`;
}
