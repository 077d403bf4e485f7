/** One thing the suite needs beyond `npm ci` (see prerequisites.mjs). */
export interface Prerequisite {
  name: string;
  usedBy: string;
  present(): boolean;
  apt?: string[];
  install?(): void;
  after?: string[];
  manual?: string;
}
/** Everything the suite needs beyond `npm ci`. */
export const PREREQUISITES: Prerequisite[];
/** The prerequisite named `name`; throws on a name the list does not hold. */
export function prerequisite(name: string): Prerequisite;
/** How to install it, in a sentence. */
export function howToInstall(p: Prerequisite): string;
/** Whether tests run under CI (CI set, and not "0" or "false"). */
export function underCi(): boolean;
/** The Java the tests start. */
export function javaCommand(): string;
/** The Python virtual environment of the Spark tests. */
export function sparkVenv(): string;
/** Its Python, which imports pyspark. */
export function sparkPython(): string;
/** The pinned Python packages of the Spark tests. */
export const SPARK_REQUIREMENTS: string;
/** Debian's Saxon-HE jar, which runs the official e-invoice rules. */
export const SAXON_JAR: string;
/** The official e-invoice rule sets, pinned (name, Maven artifact, path in it, SHA-256). */
/** The release of the official e-invoice rules the tests apply: one entry, its artifact, folder and the SHA-256 of its two files. */
export const EINVOICE_RULES_RELEASE: {
  bis: string;
  artifact: string;
  folder: string;
  sha256: Record<"EN16931-UBL" | "PEPPOL-EN16931-UBL", string>;
};
export const EINVOICE_RULES: { name: string; artifact: string; path: string; sha256: string }[];
/** The folder the rules are kept in once fetched. */
export function einvoiceRulesDir(): string;
/** The XSLT file of the rule set `name` in that folder. */
export function einvoiceRulesFile(name: string): string;
