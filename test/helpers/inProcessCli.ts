import yargs, { type CommandModule } from "yargs";
import { exitCodeFor } from "../../src/cli/exitCode.js";
import { UsageError } from "../../src/index.js";

/** What one in-process run of the CLI gave. */
export interface InProcessRun {
  /** What the commands wrote on stdout and stderr (the error's message is not in `stderr`). */
  stdout: string;
  stderr: string;
  /** The exit code src/cli/main.ts would set: 0, or `exitCodeFor(error)`. */
  code: number;
  /** What the command threw, if anything. */
  error?: unknown;
}

/**
 * Runs `cloudunits ARGS` inside this process with `commands`, parsed as src/cli/main.ts parses
 * them, without the cost of starting the tool. The process's stdout and stderr writes are taken
 * for the run and given back when it ends, whatever happens; so a file using this changes nothing
 * the next file sharing its process sees (vitest.config.ts runs in a process of their own only the
 * files that do: mocks, spies, fake timers, units registered).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command module has its own argument types, as in src/cli/commands/index.ts
export async function inProcessCli(
  commands: readonly CommandModule<any, any>[],
  args: readonly string[],
): Promise<InProcessRun> {
  const out: string[] = [];
  const err: string[] = [];
  const capture = (into: string[]) =>
    ((chunk: unknown, ...rest: unknown[]) => {
      into.push(String(chunk));
      (rest.find((r) => typeof r === "function") as (() => void) | undefined)?.();
      return true;
    }) as typeof process.stdout.write;
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  try {
    const parser = commands.reduce((p, command) => p.command(command), yargs([...args]));
    await parser
      .strict()
      .fail((message, error) => {
        throw error ?? new UsageError(message);
      })
      .parseAsync();
    return { stdout: out.join(""), stderr: err.join(""), code: 0 };
  } catch (error) {
    return { stdout: out.join(""), stderr: err.join(""), code: exitCodeFor(error), error };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
  }
}
