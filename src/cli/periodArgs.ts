import { UsageError } from "../base/errors.js";
import { monthPeriod, parseTime } from "../base/time.js";

/** The period of `--month`, or of `--start` and `--end` (one or the other). */
export function argvPeriod(argv: { month?: string; start?: string; end?: string }): { start: number; end: number } {
  if (argv.month !== undefined) {
    if (argv.start !== undefined || argv.end !== undefined)
      throw new UsageError("give --month or --start/--end, not both");
    return monthPeriod(argv.month, "--month");
  }
  if (argv.start === undefined || argv.end === undefined)
    throw new UsageError("give the period: --start T --end T, or --month YYYY-MM");
  const start = parseTime(argv.start, "--start");
  const end = parseTime(argv.end, "--end");
  if (end <= start)
    throw new UsageError(`--end ${argv.end} is not after --start ${argv.start} (the period is [start, end))`);
  return { start, end };
}
