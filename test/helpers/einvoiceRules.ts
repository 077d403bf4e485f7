// The official rules a receiving Peppol access point applies to an e-invoice: EN 16931's UBL rules
// and Peppol BIS Billing 3.0's, compiled to XSLT and run with Saxon-HE, as released
// (scripts/prerequisites.mjs pins them; tests that use them run under describeWith("saxon")).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EINVOICE_RULES, einvoiceRulesFile, javaCommand, SAXON_JAR } from "../../scripts/prerequisites.mjs";

export interface Failure {
  file: string;
  rules: string;
  id: string;
  flag: string;
}

/** Runs each rule set over every file of `input` at once (one Saxon run per rule set), and lists every rule that failed. */
export function validate(input: string): Failure[] {
  const failures: Failure[] = [];
  for (const rules of EINVOICE_RULES) {
    const output = mkdtempSync(join(tmpdir(), `cu-svrl-${rules.name}-`));
    const run = spawnSync(
      javaCommand(),
      [
        "-cp",
        SAXON_JAR,
        "net.sf.saxon.Transform",
        `-s:${input}`,
        `-xsl:${einvoiceRulesFile(rules.name)}`,
        `-o:${output}`,
      ],
      { encoding: "utf8" },
    );
    if (run.status !== 0) throw new Error(`Saxon failed on ${rules.name}: ${run.stderr}`);
    for (const file of readdirSync(output)) {
      const svrl = readFileSync(join(output, file), "utf8");
      for (const m of svrl.matchAll(/<svrl:failed-assert\b([^>]*)>/g)) {
        const attr = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(m[1]!)?.[1] ?? "";
        failures.push({ file, rules: rules.name, id: attr("id"), flag: attr("flag") || "fatal" });
      }
    }
  }
  return failures;
}
