#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { CloudunitsError, UsageError } from "../base/errors.js";
import { environmentErrorOf } from "../base/environmentError.js";
import { setClockFrom } from "./clock.js";
import { commandName, commands } from "./commands/index.js";
import { withExamples } from "./helpExamples.js";
import { exitCodeFor } from "./exitCode.js";
import { flagWords } from "./flagWords.js";
import { withFlagSuggestions } from "./nearestFlag.js";
import { refuseNonNumbers } from "./numberFlags.js";
import { refuseRepeatedFlags, type DeclaredOptions } from "./repeatedFlags.js";
import { topHelp } from "./topHelp.js";

/** The part of yargs' internals `main` turns off (not in its types). */
interface YargsInternals {
  getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?(): void } | undefined };
  getOptions(): DeclaredOptions;
}

/** cloudunits' version, from its package.json. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string })
    .version;
}

/**
 * The only place that sets the process's exit code. `--version` and `--help` alone answer
 * without loading the argument parser or any command; otherwise only the named command's
 * module loads (the others are listed by their lines, for `--help` and suggestions).
 */
async function main(argv: string[]): Promise<number> {
  const width = Math.min(110, process.stdout.columns ?? 110);
  if (argv.length === 1 && argv[0] === "--version") {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  // `cloudunits` alone is asking what there is: the command list, as --help gives it
  if (argv.length === 0 || (argv.length === 1 && argv[0] === "--help")) {
    process.stdout.write(topHelp(commands, width));
    return 0;
  }
  let usageMessage: string | undefined;
  try {
    setClockFrom(process.env, (line) => process.stderr.write(`cloudunits: ${line}\n`)); // the one clock of every decision by "now"
    const { default: yargs } = await import("yargs");
    const named = new Set(argv);
    const modules = await Promise.all(
      commands.map(async (c) =>
        named.has(commandName(c))
          ? withExamples(await c.load(), c)
          : { command: c.command, describe: c.describe, handler: () => {} },
      ),
    );
    const parser = yargs(argv)
      .scriptName("cloudunits")
      .command(modules)
      .demandCommand(1, "name a command")
      .strict()
      .recommendCommands()
      .help()
      .version(packageVersion()) // yargs would read the package.json nearest the working folder
      .wrap(width)
      .fail((msg, err) => {
        // yargs' own parse errors (e.g. "Not enough arguments following: include") are usage errors too
        if (err && err.name !== "YError") throw err;
        // an unknown flag: the nearest flag the command declares, when it is a typo away
        usageMessage = withFlagSuggestions(
          msg ?? err?.message ?? "",
          argv,
          Object.keys((parser as unknown as YargsInternals).getOptions().key),
        );
        throw new UsageError(usageMessage);
      });
    // after the command declared its flags, before its handler: a flag of one value given twice is refused
    // and a flag declared as a number given a text that is not one is refused by that text, not as NaN
    parser.middleware(() => {
      const declared = (parser as unknown as YargsInternals).getOptions();
      refuseRepeatedFlags(argv, declared);
      refuseNonNumbers(argv, declared);
    });
    // yargs renders the command's whole help before running it, in case the handler shows it
    // (string-width over billing's options: docs/performance.md); ours never does, and --help still renders it.
    const usage = (parser as unknown as YargsInternals).getInternalMethods?.().getUsageInstance?.();
    if (usage?.cacheHelpMessage) usage.cacheHelpMessage = () => {};
    await parser.parseAsync();
    return 0;
  } catch (thrown) {
    if (readerGone(thrown)) return 0;
    // a raw refusal of the machine (a writer's mkdir or open) is the environment, not a bug: one line, exit 8
    const error = thrown instanceof CloudunitsError ? thrown : (environmentErrorOf(thrown) ?? thrown);
    const code = exitCodeFor(error);
    const message = flagWords(error instanceof Error ? error.message : String(error)); // the library names options, the CLI flags
    process.stderr.write(
      `cloudunits: ${usageMessage ?? message}${error instanceof CloudunitsError && code === 1 ? ` [${error.code}]` : ""}\n`,
    );
    if (code === 1 && !(error instanceof CloudunitsError) && error instanceof Error && error.stack)
      process.stderr.write(`${error.stack}\n`);
    return code;
  }
}

/** True when `error` is a write to a pipe whose reader has gone (`cloudunits … | head`). */
function readerGone(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "EPIPE";
}

// A reader that closes the pipe early (`| head`) has all it wanted: end quietly, exit 0, as a
// pipeline's earlier stage should; the rest of the output has nowhere to go.
process.stdout.on("error", (error) => {
  if (!readerGone(error)) throw error;
  process.exit(0);
});

process.exitCode = await main(process.argv.slice(2));
