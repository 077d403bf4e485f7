import type { Argv, CommandModule } from "yargs";
import type { CommandEntry } from "./commands/index.js";

/** A command line as shell lines of at most `width` characters, indented, continued with a backslash. */
export function shellLines(line: string, width: number): string[] {
  const lines: string[] = [];
  let current = "    ";
  for (const word of line.split(" ")) {
    if (current.trim() !== "" && current.length + 1 + word.length + 2 > width) {
      lines.push(`${current} \\`);
      current = `      ${word}`;
    } else current = current.trim() === "" ? `${current}${word}` : `${current} ${word}`;
  }
  return [...lines, current];
}

/** A command's module with its entry's examples at the end of its `--help`, each line whole (to copy). */
export function withExamples(module: CommandModule, entry: CommandEntry): CommandModule {
  const { builder } = module;
  const examples = entry.examples
    .map(([line, description]) => `  ${description}:\n${shellLines(line, 96).join("\n")}`)
    .join("\n");
  return {
    ...module,
    builder: (yargs: Argv) => {
      const built = (typeof builder === "function" ? builder(yargs) : yargs.options(builder ?? {})) as Argv;
      return built.epilogue(`Examples:\n${examples}`);
    },
  };
}
