import { createRequire } from "node:module";
import type cliProgressModule from "cli-progress";

/**
 * Progress bars for the CLI, drawn on stderr only when stderr is a terminal and the `CI`
 * environment variable is not set: nothing is written on a pipe, to a file or in CI.
 * The library never draws; commands pass `bar.update` as the library's `onProgress`.
 */

/** Where a bar draws and which environment decides whether it draws. */
export interface ProgressOptions {
  /** The stream to draw on. Default: `process.stderr`. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** The environment consulted for `CI`. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** True when a bar should be drawn: the stream is a TTY and `CI` is unset or empty. */
export function progressEnabled(options: ProgressOptions = {}): boolean {
  const stream = options.stream ?? process.stderr;
  const env = options.env ?? process.env;
  return stream.isTTY === true && !env.CI;
}

/** Progress over many files: how many files and megabytes are done, of how many. */
export interface FilesProgressState {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

/** A bar for many files (ingest): `[████░░░░] 40% | 12/30 files | 4.0/10.0 MB | ETA 3s`. */
export interface FilesProgress {
  update(state: FilesProgressState): void;
  /** Draws the last state and leaves the line; safe to call twice. */
  stop(): void;
}

/** A bar for one download: `[████░░░░] 40% | 4.0/10.0 MB | 2.0 MB/s | ETA 3s`. */
export interface BytesProgress {
  /** `bytesTotal` undefined when the size is unknown (no Content-Length): no bar, no ETA. */
  update(bytesDone: number, bytesTotal?: number): void;
  stop(): void;
}

const BAR_WIDTH = 24;

function megabytes(bytes: number): string {
  return (bytes / 1_000_000).toFixed(1);
}

function seconds(value: number): string {
  if (!Number.isFinite(value) || value < 0) return "?";
  const s = Math.round(value);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${s}s`;
}

function bar(fraction: number): string {
  const filled = Math.max(0, Math.min(BAR_WIDTH, Math.round(fraction * BAR_WIDTH)));
  return `[${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}%`;
}

/** Seconds left at the average rate so far; NaN when nothing is done yet. */
function etaSeconds(done: number, total: number, elapsedSeconds: number): number {
  if (done <= 0 || elapsedSeconds <= 0) return Number.NaN;
  return ((total - done) * elapsedSeconds) / done;
}

/** The text of a files bar; `elapsedSeconds` since the bar started. Exported for tests. */
export function formatFilesLine(label: string, state: FilesProgressState, elapsedSeconds: number): string {
  const fraction =
    state.bytesTotal > 0
      ? state.bytesDone / state.bytesTotal
      : state.filesTotal > 0
        ? state.filesDone / state.filesTotal
        : 0;
  const eta =
    state.bytesTotal > 0
      ? etaSeconds(state.bytesDone, state.bytesTotal, elapsedSeconds)
      : etaSeconds(state.filesDone, state.filesTotal, elapsedSeconds);
  return (
    `${label} ${bar(fraction)} | ${state.filesDone}/${state.filesTotal} files` +
    ` | ${megabytes(state.bytesDone)}/${megabytes(state.bytesTotal)} MB | ETA ${seconds(eta)}`
  );
}

/** The text of a bytes bar; `bytesTotal` undefined when unknown. Exported for tests. */
export function formatBytesLine(
  label: string,
  bytesDone: number,
  bytesTotal: number | undefined,
  elapsedSeconds: number,
): string {
  const rate = elapsedSeconds > 0 ? bytesDone / elapsedSeconds : 0;
  const rateText = `${megabytes(rate)} MB/s`;
  if (bytesTotal === undefined || bytesTotal <= 0) return `${label} ${megabytes(bytesDone)} MB | ${rateText}`;
  return (
    `${label} ${bar(bytesDone / bytesTotal)} | ${megabytes(bytesDone)}/${megabytes(bytesTotal)} MB` +
    ` | ${rateText} | ETA ${seconds(etaSeconds(bytesDone, bytesTotal, elapsedSeconds))}`
  );
}

/** A single-line bar that draws `line()` whenever cli-progress repaints. */
function startBar(line: (elapsedSeconds: number) => string, options: ProgressOptions): { stop(): void; touch(): void } {
  const startMs = Date.now();
  // Loaded only when a bar is drawn (a terminal): other runs never pay for it.
  const cliProgress = createRequire(import.meta.url)("cli-progress") as typeof cliProgressModule;
  const progress = new cliProgress.SingleBar({
    stream: options.stream ?? process.stderr,
    format: () => line((Date.now() - startMs) / 1000),
    hideCursor: false,
    linewrap: false,
    fps: 5,
    gracefulExit: true,
  });
  progress.start(1, 0);
  let stopped = false;
  return {
    touch: () => {
      if (!stopped) progress.update(0);
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      progress.stop();
    },
  };
}

/**
 * A files/MB/ETA bar labelled `label`, drawn from the first `update` on (nothing before,
 * so a command that fails early leaves no empty bar). When progress is not enabled
 * (see {@link progressEnabled}) it returns a bar that draws nothing.
 */
export function startFilesProgress(label: string, options: ProgressOptions = {}): FilesProgress {
  if (!progressEnabled(options)) return { update: () => {}, stop: () => {} };
  let state: FilesProgressState = { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 };
  let drawn: ReturnType<typeof startBar> | undefined;
  return {
    update: (next) => {
      state = { ...next };
      drawn ??= startBar((elapsed) => formatFilesLine(label, state, elapsed), options);
      drawn.touch();
    },
    stop: () => drawn?.stop(),
  };
}

/**
 * A bytes/rate bar labelled `label` (one download), drawn from the first `update` on. When progress is not enabled
 * it returns a bar that draws nothing.
 */
export function startBytesProgress(label: string, options: ProgressOptions = {}): BytesProgress {
  if (!progressEnabled(options)) return { update: () => {}, stop: () => {} };
  let done = 0;
  let total: number | undefined;
  /** Seconds the download took, once complete: the rate then stays that of the download. */
  let finishedSeconds: number | undefined;
  let startMs = 0;
  let drawn: ReturnType<typeof startBar> | undefined;
  return {
    update: (bytesDone, bytesTotal) => {
      done = bytesDone;
      total = bytesTotal;
      if (!drawn) {
        startMs = Date.now();
        drawn = startBar((elapsed) => formatBytesLine(label, done, total, finishedSeconds ?? elapsed), options);
      }
      finishedSeconds = total !== undefined && done >= total ? (Date.now() - startMs) / 1000 : undefined;
      drawn.touch();
    },
    stop: () => drawn?.stop(),
  };
}

/** A bar over countable steps: `[████░░░░] 40% | 48/120 hours | account 7 | ETA 3s`. */
export interface StepsProgress {
  /** `detail` says what is in hand (e.g. the account and chunk). */
  update(done: number, total: number, detail: string): void;
  stop(): void;
}

/** The text of a steps bar. Exported for tests. */
export function formatStepsLine(
  label: string,
  unit: string,
  done: number,
  total: number,
  detail: string,
  elapsedSeconds: number,
): string {
  const fraction = total > 0 ? done / total : 0;
  return `${label} ${bar(fraction)} | ${done}/${total} ${unit} | ${detail} | ETA ${seconds(etaSeconds(done, total, elapsedSeconds))}`;
}

/** A steps bar labelled `label`, counting `unit`, drawn from the first `update` on; nothing when progress is not enabled. */
export function startStepsProgress(label: string, unit: string, options: ProgressOptions = {}): StepsProgress {
  if (!progressEnabled(options)) return { update: () => {}, stop: () => {} };
  let state = { done: 0, total: 0, detail: "" };
  let drawn: ReturnType<typeof startBar> | undefined;
  return {
    update: (done, total, detail) => {
      state = { done, total, detail };
      drawn ??= startBar(
        (elapsed) => formatStepsLine(label, unit, state.done, state.total, state.detail, elapsed),
        options,
      );
      drawn.touch();
    },
    stop: () => drawn?.stop(),
  };
}
