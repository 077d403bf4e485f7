/**
 * The relative path of an account-hour's directory as the platform writes it:
 * `<accountId>/<year>/<month>/<day>/<hour>`, UTC, month, day and hour unpadded (SPEC 2.1).
 */
export function hourPath(accountId: number, hourEpoch: number): string {
  const t = new Date(hourEpoch * 1000);
  return `${accountId}/${t.getUTCFullYear()}/${t.getUTCMonth() + 1}/${t.getUTCDate()}/${t.getUTCHours()}`;
}
