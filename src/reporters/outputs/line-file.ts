/**
 * A file of lines written as they come, for a live output: each batch is one `write` to the file
 * (no buffer of the harness's own between batches), so a process killed at any moment, even by
 * SIGKILL, leaves every line whose batch was written complete and readable. Writing is asynchronous
 * (libuv's thread pool) and bounded: the load's thread never waits on the disk, lines queued beyond
 * `maxPendingBytes` are dropped and counted, a write that fails (a full disk) counts its lines as
 * dropped, and closing waits at most a given time. A slow or failing disk costs lines, never the run.
 */
import { close, closeSync, mkdirSync, openSync, write } from 'node:fs';
import { dirname } from 'node:path';

export interface LineFileTotals {
  /** Lines the file holds. */
  readonly written: number;
  /** Lines dropped: past the bound, lost in a failed write, or still queued when closing gave up. */
  readonly dropped: number;
  /** The first failed write's error, one line. */
  readonly error?: string;
}

export interface LineFile {
  /** Queues lines (each without its newline) to be written at once, in order. */
  write(lines: readonly string[]): void;
  /** What was written and dropped so far. */
  totals(): LineFileTotals;
  /** Writes what is queued within `withinMs` (what is left is dropped), then closes the file. */
  close(withinMs: number): Promise<LineFileTotals>;
}

/** 4 MiB: at a few hundred bytes a line, minutes of a run's points behind a disk that stalled. */
export const defaultMaxPendingBytes = 4 * 1024 * 1024;

/**
 * Opens `path` for writing (made empty; its folder made if missing). Throws the system's error when
 * it cannot be opened (a folder, no permission): the caller says so in one line and goes on without it.
 */
export function openLineFile(path: string, options: { readonly maxPendingBytes?: number } = {}): LineFile {
  const maxPendingBytes = options.maxPendingBytes ?? defaultMaxPendingBytes;
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
  let pending: string[] = [];
  let pendingBytes = 0;
  let writing = false;
  let closed = false;
  let written = 0;
  let dropped = 0;
  let error: string | undefined;
  let idle: (() => void) | undefined;

  const fail = (lines: number, cause: NodeJS.ErrnoException) => {
    dropped += lines;
    error ??= cause.message.split('\n')[0];
  };

  // One batch at a time: everything queued since the last one, as one buffer, written to its end.
  const next = () => {
    if (pending.length === 0) {
      writing = false;
      idle?.();
      return;
    }
    writing = true;
    const lines = pending.length;
    const buffer = Buffer.from(`${pending.join('\n')}\n`);
    pending = [];
    pendingBytes = 0;
    const rest = (offset: number) => {
      write(fd, buffer, offset, buffer.length - offset, null, (cause, bytes) => {
        if (cause) fail(lines, cause);
        else if (offset + bytes < buffer.length && !closed) return rest(offset + bytes);
        else if (offset + bytes < buffer.length) dropped += lines;
        else written += lines;
        // Closing gave up on this batch: nothing more is written, and the file is closed now.
        if (closed) {
          writing = false;
          close(fd, () => {});
          return;
        }
        next();
      });
    };
    rest(0);
  };

  return {
    write(lines) {
      if (closed) return;
      for (const line of lines) {
        const bytes = Buffer.byteLength(line) + 1;
        if (pendingBytes + bytes > maxPendingBytes) {
          dropped++;
          continue;
        }
        pending.push(line);
        pendingBytes += bytes;
      }
      if (!writing) next();
    },
    totals: () => ({ written, dropped, ...(error !== undefined && { error }) }),
    async close(withinMs) {
      if (closed) return this.totals();
      const drained =
        !writing ||
        (await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), withinMs);
          idle = () => {
            clearTimeout(timer);
            resolve(true);
          };
        }));
      closed = true;
      idle = undefined;
      // What is still queued behind a write that did not return in time is dropped; that write's
      // batch is counted when it returns, and the file closed then.
      dropped += pending.length;
      pending = [];
      pendingBytes = 0;
      if (drained) closeSync(fd);
      return this.totals();
    },
  };
}
