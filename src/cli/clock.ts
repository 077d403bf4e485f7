import { setClock } from "../base/clock.js";
import { UsageError } from "../base/errors.js";
import { isoUtc, parseTime } from "../base/time.js";

/**
 * The variable the tests set to run a command at another time than the clock's (a month-end, a
 * running month, a year's turn). Not a user setting: whenever it is set, the command says so on
 * stderr. Every command reads it once, before it runs (src/cli/main.ts), into the one clock
 * (src/base/clock.ts) that every decision by "now" reads.
 */
export const TEST_CLOCK_VARIABLE = "CLOUDUNITS_TEST_NOW";

/**
 * Sets the one clock from `env` for this run: the system's clock, or the test clock (saying so
 * through `note`). Every decision by "now" then reads `clockNow()`.
 */
export function setClockFrom(env: NodeJS.ProcessEnv, note: (line: string) => void): void {
  const value = env[TEST_CLOCK_VARIABLE];
  if (value === undefined || value === "") {
    setClock(undefined);
    return;
  }
  let epoch: number;
  try {
    epoch = parseTime(value, TEST_CLOCK_VARIABLE);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; ${TEST_CLOCK_VARIABLE} is a test setting: unset it`, {
      cause: error,
    });
  }
  note(`the time is taken as ${isoUtc(epoch)} from ${TEST_CLOCK_VARIABLE} (a test setting), not from the clock`);
  setClock(epoch);
}
