#!/usr/bin/env node
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { UsageError } from "../errors.js";
import { commands } from "./commands/index.js";
import { exitCodeFor } from "./exitCode.js";

/** The only place that sets the process's exit code. */
async function main(argv: string[]): Promise<number> {
  let usageMessage: string | undefined;
  const parser = yargs(argv)
    .scriptName("cloudunits")
    .command(commands)
    .demandCommand(1, "name a command")
    .strict()
    .recommendCommands()
    .help()
    .version()
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((msg, err) => {
      if (err) throw err;
      usageMessage = msg;
      throw new UsageError(msg);
    });
  try {
    await parser.parseAsync();
    return 0;
  } catch (error) {
    const code = exitCodeFor(error);
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`cloudunits: ${usageMessage ?? message}\n`);
    if (code === 1 && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return code;
  }
}

process.exitCode = await main(hideBin(process.argv));
