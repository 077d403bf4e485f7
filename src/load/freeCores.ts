import { cpus, loadavg } from "node:os";

/** The idle time of every core (ms) and when it was read. */
interface CpuSample {
  idleMs: number;
  atMs: number;
}

function sample(): CpuSample {
  return { idleMs: cpus().reduce((sum, cpu) => sum + cpu.times.idle, 0), atMs: performance.now() };
}

/** Taken when this module is loaded (as a command starts): what the cores did since is what they do now. */
const FIRST = sample();

/** Shorter windows than this are too coarse to read (the kernel counts idle time in ticks of 10 ms). */
const MIN_WINDOW_MS = 100;

/**
 * The cores free for more threads now, besides the work of this process's threads: the idle
 * time of every core since `since` (by default, since this module was loaded) over the time
 * passed, in cores; over a shorter window than 0.1 s, the cores less the load average of the
 * last minute. On 2 cores with nothing else running and this thread busy, about 1; under a
 * load of 15 other processes, about 0.
 */
export function freeCores(cores: number, since: CpuSample = FIRST): number {
  const now = sample();
  const windowMs = now.atMs - since.atMs;
  if (windowMs < MIN_WINDOW_MS) return Math.max(0, cores - loadavg()[0]!);
  return Math.min(cores, Math.max(0, (now.idleMs - since.idleMs) / windowMs));
}
