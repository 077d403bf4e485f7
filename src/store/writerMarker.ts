import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from "node:fs";

/**
 * A writer that finds a warehouse file held says so in `FILE.writer-waiting` until it has the
 * file: readers do not open it while a live writer waits. Without it a report run every second
 * starves a sync, as each reader holds the file for a moment and together they always hold it.
 *
 * The marker is a small text file only a writer waiting for this file makes, and each reader
 * checks it proves one (docs/operations.md, "Readers during a sync"):
 * - the writer creates it exclusively, never through a link (`O_CREAT | O_EXCL | O_NOFOLLOW`),
 *   keeps it open, touches it at every try, and removes it only while it is still its own;
 * - it names the writer's process (PID and start time, from `/proc`) and the warehouse file
 *   (device and inode): a marker of another file, of a process gone (its PID reused) or of one
 *   that stopped touching it (for `MARKER_FRESH_MS`) is ignored at once;
 * - a reader reads it only as a regular file (checked before and after opening, which never
 *   follows a link nor blocks), at most `MARKER_MAX_BYTES`: a FIFO, a device, a link or a
 *   large file there is no writer.
 */
export const writerWaitingFile = (file: string) => `${file}.writer-waiting`;

/** The most a marker holds, bytes: a real one is under 100; a reader reads no more. */
export const MARKER_MAX_BYTES = 256;

/** A marker not touched for this long is of a writer that no longer waits (it touches it every try, 20–200 ms). */
export const MARKER_FRESH_MS = 10_000;

const MARKER_PATTERN = /^cloudunits writer-waiting\npid (\d{1,10})\nstart (\d{1,20})\nfile (\d{1,20}):(\d{1,24})\n$/;

/** What a marker says. */
interface MarkerProof {
  pid: number;
  /** The process's start time, in clock ticks after boot (`/proc/PID/stat`, field 22). */
  start: string;
  /** The warehouse file's device and inode. */
  file: string;
}

/** A process's start time (`/proc/PID/stat`, field 22), or undefined when it is gone or cannot be read. */
export function processStart(pid: number | "self"): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1"); // a short read of the kernel's, never blocks
  } catch {
    return undefined;
  }
  // "PID (comm) state ppid ...": the command may hold spaces and parentheses, so count after the last ")"
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = fields[19];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

/** The device and inode of the warehouse file, or undefined when it is not there. */
function fileIdentity(file: string): string | undefined {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.dev}:${s.ino}`;
  } catch {
    return undefined;
  }
}

const sameFile = (a: BigIntStats, b: BigIntStats) => a.dev === b.dev && a.ino === b.ino;

/**
 * The marker's bytes, read as a regular file only: not through a link, never blocking, at most
 * `MARKER_MAX_BYTES`; undefined for anything else there (or nothing).
 */
function readMarker(marker: string): string | undefined {
  let before: BigIntStats;
  try {
    before = lstatSync(marker, { bigint: true });
  } catch {
    return undefined;
  }
  if (!before.isFile() || before.size > MARKER_MAX_BYTES) return undefined;
  let fd: number;
  try {
    fd = openSync(marker, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const opened = fstatSync(fd, { bigint: true });
    if (!opened.isFile() || !sameFile(before, opened) || opened.size > MARKER_MAX_BYTES) return undefined; // replaced meanwhile
    if (Date.now() - Number(opened.mtimeMs) > MARKER_FRESH_MS) return undefined;
    const bytes = Buffer.alloc(MARKER_MAX_BYTES + 1);
    const length = readSync(fd, bytes, 0, bytes.length, 0);
    return length > MARKER_MAX_BYTES ? undefined : bytes.subarray(0, length).toString("latin1");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** What a marker says, when it is one (the exact form a writer writes). */
function parseMarker(text: string): MarkerProof | undefined {
  const m = MARKER_PATTERN.exec(text);
  if (!m) return undefined;
  const pid = Number(m[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, start: m[2]!, file: `${m[3]}:${m[4]}` } : undefined;
}

/** Whether a marker's proof holds now: the file is this one, and its process runs, the same one (its start time). */
function proves(proof: MarkerProof, file: string): boolean {
  return proof.pid !== process.pid && proof.file === fileIdentity(file) && processStart(proof.pid) === proof.start;
}

/** True when another live process waits to write `file` and proves it by its marker; every other marker is ignored. */
export function writerWaiting(file: string): boolean {
  const text = readMarker(writerWaitingFile(file));
  const proof = text === undefined ? undefined : parseMarker(text);
  return proof !== undefined && proves(proof, file);
}

/** This process's marker while it waits: touched at every try, removed once the writer has the file. */
export interface WriterMark {
  /** Says the writer still waits (readers ignore a marker not touched for `MARKER_FRESH_MS`). */
  touch(): void;
  /** Removes the marker, if it is still this one. */
  remove(): void;
}

/**
 * Marks this process as the writer waiting for `file`, or returns undefined when it cannot: a
 * live writer's marker is there (this one waits without), or the marker cannot be made (a
 * read-only folder; the wait goes on without). Whatever else is at the marker's path (a
 * stale or forged marker, a link, a FIFO) is removed (a link itself, never what it points to)
 * and the marker made anew, exclusively.
 */
export function markWriterWaiting(file: string): WriterMark | undefined {
  const marker = writerWaitingFile(file);
  const identity = fileIdentity(file);
  const start = processStart("self");
  if (identity === undefined || start === undefined) return undefined; // nothing a reader could check
  const text = `cloudunits writer-waiting\npid ${process.pid}\nstart ${start}\nfile ${identity}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(marker, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || writerWaiting(file)) return undefined;
      try {
        unlinkSync(marker); // not a live writer's: stale, forged, or no marker at all
      } catch {
        return undefined;
      }
      continue;
    }
    const own = fstatSync(fd, { bigint: true });
    try {
      writeSync(fd, text);
    } catch {
      closeSync(fd);
      removeIfOwn(marker, own);
      return undefined;
    }
    return {
      touch: () => {
        try {
          futimesSync(fd, new Date(), new Date());
        } catch {
          // the marker goes stale: readers stop waiting for this writer, which goes on retrying
        }
      },
      remove: () => {
        closeSync(fd);
        removeIfOwn(marker, own);
      },
    };
  }
  return undefined;
}

/** Removes `marker` when it is the file `own` (this writer's; another's made since is left). */
function removeIfOwn(marker: string, own: BigIntStats): void {
  try {
    if (sameFile(lstatSync(marker, { bigint: true }), own)) unlinkSync(marker);
  } catch {
    // gone already
  }
}
