/** Prints a line of the command's answer on stdout. */
export const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Prints a line beside the answer (a note, a warning) on stderr, after `cloudunits: `. */
export const note = (line: string): void => {
  process.stderr.write(`cloudunits: ${line}\n`);
};

/** The config's older keys and what a file could not hold as written, on stderr. */
export const noteAll = (result: { notes: string[]; warnings: string[] }): void => {
  for (const line of result.notes) note(`note: ${line}`);
  for (const line of result.warnings) note(`warning: ${line}`);
};
