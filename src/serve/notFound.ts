import { UsageError } from "../base/errors.js";

/** An account, cloud space or machine the warehouse does not hold (the dashboard answers 404; the CLI's usage error, exit 2). */
export class NotFoundError extends UsageError {
  constructor(message: string) {
    super(message, { code: "NOT_FOUND" });
  }
}

/** The error for an entity the warehouse does not hold: `what` is e.g. "account 7", "cloud space 12". */
export const notInWarehouse = (what: string): NotFoundError => new NotFoundError(`no ${what} in the warehouse`);
