import { UsageError } from "../base/errors.js";
import { isoUtc, parseTime } from "../base/time.js";

/**
 * The variable the tests set to run a command at another time than the clock's (a month-end, a
 * running month), read only by the commands that ask what time it is for a decision (`invoices
 * issue` and `correct`). Not a user setting: whenever it is set, the command says so on stderr.
 */
export const TEST_CLOCK_VARIABLE = "CLOUDUNITS_TEST_NOW";

/** Now, epoch seconds: the clock's, or the test clock's (saying so through `note`). */
export function clockOf(env: NodeJS.ProcessEnv, note: (line: string) => void): number {
  const value = env[TEST_CLOCK_VARIABLE];
  if (value === undefined || value === "") return Date.now() / 1000;
  let epoch: number;
  try {
    epoch = parseTime(value, TEST_CLOCK_VARIABLE);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; ${TEST_CLOCK_VARIABLE} is a test setting: unset it`, { cause: error });
  }
  note(`the time is taken as ${isoUtc(epoch)} from ${TEST_CLOCK_VARIABLE} (a test setting), not from the clock`);
  return epoch;
}
