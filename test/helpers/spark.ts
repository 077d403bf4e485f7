// Spark for the tests: one session (`local[2]`, the pinned pyspark of scripts/spark-requirements.txt
// in its Python environment) runs a job of steps (test/helpers/sparkSteps.py) and answers JSON.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sparkPython } from "../../scripts/prerequisites.mjs";

/** One step of a job; see sparkSteps.py. */
export type SparkStep = { name: string; args?: Record<string, string | number> } & (
  { run: string[] } | { rows: string } | { explain: string } | { tableSchema: string } | { fileSchema: string }
);

/** What a job gave: each step's result or error, by name. */
export interface SparkAnswer {
  sparkVersion: string;
  sessionTimeZone: string;
  steps: Record<string, { result?: unknown; error?: string }>;
  seconds: { startup: number; total: number; jvmCpu: number | null };
}

/**
 * Runs `steps` in one Spark session whose JVM and session time zone is `timeZone` (not UTC by
 * default: a column that holds UTC hours must not depend on it), in `dir` (its catalog's
 * warehouse and the job file live there).
 */
export function runSpark(steps: SparkStep[], dir: string, timeZone = "Pacific/Auckland"): Promise<SparkAnswer> {
  const job = join(dir, "spark-job.json");
  writeFileSync(job, JSON.stringify({ warehouseDir: join(dir, "spark-warehouse"), steps }));
  const env = { ...process.env, TZ: timeZone, SPARK_LOCAL_IP: "127.0.0.1", PYSPARK_PYTHON: sparkPython() };
  return new Promise((resolve, reject) => {
    execFile(
      sparkPython(),
      [join(import.meta.dirname, "sparkSteps.py"), job],
      { cwd: dir, env, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`Spark failed: ${error.message}\n${stderr.slice(-4000)}`));
        else resolve(JSON.parse(stdout) as SparkAnswer);
      },
    );
  });
}

/** A step's result, or a thrown error with Spark's message. */
export function resultOf<T>(answer: SparkAnswer, name: string): T {
  const step = answer.steps[name];
  if (!step) throw new Error(`no step "${name}" in the Spark answer`);
  if (step.error !== undefined) throw new Error(`Spark step "${name}": ${step.error}`);
  return step.result as T;
}
