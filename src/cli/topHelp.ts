import type { CommandLine } from "./commands/index.js";

/** Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

/**
 * `cloudunits --help`: the commands with their lines and the two global options, laid out as
 * the argument parser lays out a command's help (written here so that it needs no parser).
 */
export function topHelp(commands: readonly CommandLine[], width: number): string {
  const rows = commands.map((c) => [`  cloudunits ${c.command}`, c.describe] as const);
  const left = Math.max(...rows.map(([usage]) => usage.length)) + 2;
  const out = ["cloudunits <command>", "", "Commands:"];
  for (const [usage, describe] of rows) {
    const lines = wrapWords(describe, Math.max(20, width - left));
    out.push(usage.padEnd(left) + lines[0], ...lines.slice(1).map((l) => " ".repeat(left) + l));
  }
  const option = (name: string, describe: string) => `  ${name.padEnd(11)}${describe}`.padEnd(width - 9) + "[boolean]";
  out.push("", "Options:", option("--help", "Show help"), option("--version", "Show version number"), "");
  return out.join("\n");
}
