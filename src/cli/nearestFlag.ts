/**
 * yargs refuses a flag it does not know (`Unknown argument: mnth`), or a required one missing when
 * it was misspelt, without saying what was meant; `withFlagSuggestions` adds, for each flag given
 * that the command does not declare, the nearest it does when a typo away
 * (`Unknown argument: mnth; did you mean --month?`).
 */
export function withFlagSuggestions(message: string, argv: readonly string[], declared: Iterable<string>): string {
  const known = new Set([...declared].map(kebab));
  const flags = [...known].filter((k) => /^[a-z][a-z0-9-]*$/.test(k));
  const given = [
    ...new Set(
      argv
        .slice(0, argv.includes("--") ? argv.indexOf("--") : undefined)
        .filter((arg) => /^--?[A-Za-z]/.test(arg))
        .map((arg) => kebab(arg.replace(/^-+/, "").split("=")[0]!)),
    ),
  ];
  const unknown = given.filter((name) => !known.has(name) && !(name.startsWith("no-") && known.has(name.slice(3))));
  const suggestions = unknown
    .map((name) => ({ name, flag: nearestFlag(name, flags) }))
    .filter((s): s is { name: string; flag: string } => s.flag !== undefined);
  if (suggestions.length === 0) return message;
  if (!/^Unknown arguments?: /.test(message)) {
    return `${message}; ${suggestions.map((s) => `--${s.name} is not a flag of this command: did you mean --${s.flag}?`).join("; ")}`;
  }
  // yargs names an unknown flag twice, as given and in camelCase: once here, as given
  const meant =
    suggestions.length === 1 && unknown.length === 1
      ? `--${suggestions[0]!.flag}`
      : suggestions.map((s) => `--${s.flag} (for --${s.name})`).join(", ");
  return `Unknown argument${unknown.length === 1 ? "" : "s"}: ${unknown.join(", ")}; did you mean ${meant}?`;
}

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The declared flag nearest `given` by edits (a letter added, dropped, changed or two swapped), when a typo away: 1 edit in up to 4 letters, 2 in up to 8, else 3. */
export function nearestFlag(given: string, flags: readonly string[]): string | undefined {
  const allowed = given.length <= 4 ? 1 : given.length <= 8 ? 2 : 3;
  let best: { flag: string; distance: number } | undefined;
  for (const flag of flags) {
    const distance = edits(given, flag);
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { flag, distance };
  }
  return best?.flag;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function edits(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
