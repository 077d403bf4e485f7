import { UsageError } from "./errors.js";

/**
 * A file the caller named does not exist (exit 2, code `INPUT_NOT_FOUND`), whatever its role: an
 * input, the warehouse, the price list, the units, names or budgets file, the statement config.
 * `role` names it for the message (`price list`), `todo` what to do, when there is more to say.
 */
export function fileNotFound(role: string, file: string, options: { cause?: unknown; todo?: string } = {}): UsageError {
  return new UsageError(`${role} not found: ${file}${options.todo ? ` (${options.todo})` : ""}`, {
    code: "INPUT_NOT_FOUND",
    cause: options.cause,
  });
}

/** Whether a file system error says the path does not exist (ENOENT, or a file where a folder of it was expected). */
export function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
