// The tests that need something beyond `npm ci` (a Debian tool, Spark) ask for it here, by its
// name in scripts/prerequisites.mjs. Present, they run. Absent, they are skipped with how to
// install it, except under CI (CI=true), where the suite must run everything: they fail.
import { describe, it } from "vitest";
import { howToInstall, prerequisite, underCi } from "../../scripts/prerequisites.mjs";

/** Whether the prerequisite `name` is there. */
export function has(name: string): boolean {
  return prerequisite(name).present();
}

/**
 * For a check inside a test: true when `name` is there; false when it is absent here; under CI,
 * absent, it throws (the test fails, saying what is missing).
 */
export function needs(name: string): boolean {
  if (has(name)) return true;
  if (underCi()) throw new Error(`CI=true: ${howToInstall(prerequisite(name))}`);
  return false;
}

/** `describe(title, body)` when `name` is there; else skipped with how to install it, or under CI one failing test that says so. */
export function describeWith(name: string, title: string, body: () => void): void {
  if (has(name)) describe(title, body);
  else if (underCi()) describe(title, () => it(`needs ${name}`, () => void needs(name)));
  else {
    const why = howToInstall(prerequisite(name));
    process.stderr.write(`skipped "${title}": ${why}\n`);
    describe.skip(`${title} (skipped: ${why})`, body);
  }
}
