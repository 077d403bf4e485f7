/**
 * Folders that refuse writes as a machine does: a full disk (a small tmpfs, where the machine
 * lets a test mount one in a user and mount namespace; else the process's file size limit,
 * `ulimit -f`, which fails writes with EFBIG) and a read-only folder (the tmpfs remounted
 * read-only; else, for a user who is not root, a folder without write permission).
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, type CliRun } from "./runCli.js";

/** True when a tmpfs can be mounted here (`unshare -rm`: a user and mount namespace, no trace on the machine); `NO_MOUNT=1` tries the other ways. */
export const canMount =
  !process.env.NO_MOUNT &&
  spawnSync("unshare", ["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]).status === 0;

/** How the folder refuses once `setup` wrote into it: `full` (room for `freeKib` more, then no space), `read-only`. */
export type Refusal = { kind: "full"; freeKib: number } | { kind: "read-only" };

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * Runs `setup` (shell lines, the folder still writable and roomy), then each of `runs` (cloudunits
 * argument lists) with `folder` refusing as `refusal` says. Returns each run's exit code and output.
 * The folder's content stays afterwards only without a mount (with one, `options.keep` lines copy out
 * what to keep); `options.env` is added to the runs' environment; `options.setupMib`: the room of the
 * setup (with a mount; default 16).
 */
export function withRefusingFolder(
  folder: string,
  refusal: Refusal,
  setup: string[],
  runs: string[][],
  options: { keep?: string[]; env?: Record<string, string>; setupMib?: number } = {},
): Promise<CliRun[]> {
  mkdirSync(folder, { recursive: true });
  const logs = `${folder}.logs`;
  mkdirSync(logs, { recursive: true });
  const cli = (args: string[], i: number) =>
    `${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(" ")} >${logs}/${i}.out 2>${logs}/${i}.err; echo $? >${logs}/${i}.rc`;
  // with a mount: a tmpfs of 16 MiB for the setup, then shrunk to what it holds and `freeKib` more, or made read-only;
  // without: no write may reach beyond `freeKib` into any file
  const refuse =
    refusal.kind === "full"
      ? canMount
        ? [`mount -o remount,size=$(( $(du -sk ${quote(folder)} | cut -f1) + ${refusal.freeKib} ))k ${quote(folder)}`]
        : ["trap '' XFSZ", `ulimit -f ${refusal.freeKib}`]
      : canMount
        ? [`mount -o remount,ro,bind ${quote(folder)}`]
        : [`chmod a-w ${quote(folder)}`];
  const script = [
    "set -e",
    ...(canMount ? [`mount -t tmpfs -o size=${options.setupMib ?? 16}m tmpfs ${quote(folder)}`] : []),
    ...setup,
    "(", // the limits of the runs end with them
    ...refuse,
    "set +e",
    ...runs.map(cli),
    ")",
    ...(options.keep ?? []),
  ].join("\n");
  const command = canMount
    ? (["unshare", ["-rm", "bash", "-c", script]] as const)
    : (["bash", ["-c", script]] as const);
  return new Promise((resolve, reject) => {
    execFile(
      command[0],
      [...command[1]],
      { env: { ...process.env, CI: "1", ...options.env }, maxBuffer: 64 << 20 },
      (error, _stdout, stderr) => {
        if (error) {
          reject(new Error(`the refusing folder could not be set up: ${stderr}`));
          return;
        }
        resolve(
          runs.map((_, i) => ({
            code: Number(readFileSync(join(logs, `${i}.rc`), "utf8")),
            stdout: readFileSync(join(logs, `${i}.out`), "utf8"),
            stderr: readFileSync(join(logs, `${i}.err`), "utf8"),
          })),
        );
      },
    );
  });
}
