// The reference C++ tool (`capnp`, Debian's capnproto): the judge of what our decoder reads
// and what our generator writes. One process handles a whole stream of messages.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The schema of the consumption files (the source of truth). */
export const SCHEMA = fileURLToPath(new URL("../../schema/resourcemonitoring.capnp", import.meta.url));
/** The older schema: `Disk` without `configuredIops` (24 bytes of data, no pointer). */
export const OLD_SCHEMA = fileURLToPath(new URL("../fixtures/resourcemonitoring-old.capnp", import.meta.url));

/** Runs `capnp ARGS` with `input` on stdin; throws (saying what to install) when it cannot start. */
export function runCapnp(
  args: string[],
  input: Uint8Array | string,
): { stdout: Buffer; stderr: string; status: number | null } {
  const r = spawnSync("capnp", args, { input, maxBuffer: 1 << 30 });
  if (r.error) throw new Error(`cannot run capnp (install Debian's capnproto): ${r.error.message}`);
  return { stdout: r.stdout, stderr: r.stderr.toString(), status: r.status };
}
