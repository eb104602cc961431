/**
 * A file another process is still writing, read as it grows (`tail -f`): k6's `--out json` file while
 * k6 runs, so its samples reach the harness's live outputs as they are made, from the one file the
 * harness reads at the end anyway (k6 does no more work for it). Once `stop()` is called (k6 has
 * exited and closed the file), the stream reads to the file's end and ends; before it, an end of file
 * is a pause, and a file not there yet is waited for.
 */
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';

/** How long a reader at the end of a growing file waits before it looks again (k6 flushes every 200 ms). */
export const followPollMs = 250;

/** Says when the writer is done; wakes the readers waiting at an end of file. */
export class FollowStop {
  #stopped = false;
  readonly #waiting = new Set<() => void>();

  get stopped(): boolean {
    return this.#stopped;
  }

  /** The writer is done: every file is read to its end, then its stream ends. */
  stop(): void {
    this.#stopped = true;
    for (const wake of this.#waiting) wake();
    this.#waiting.clear();
  }

  /** A pause of `followPollMs`, cut short by `stop()`. */
  nap(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, followPollMs);
      this.#waiting.add(wake);
    });
  }
}

const chunkBytes = 1 << 20;

/** The bytes of `path` as they are written, until `stop` says the writer is done and the end is read. */
export function followFile(path: string, stop: FollowStop): Readable {
  let handle: FileHandle | undefined;
  let position = 0;
  return new Readable({
    highWaterMark: chunkBytes,
    read() {
      const next = async (): Promise<void> => {
        for (;;) {
          if (handle === undefined) {
            const done = stop.stopped;
            try {
              handle = await open(path, 'r');
            } catch (error) {
              // Not there yet (k6 still starting): waited for, until the writer is done without it.
              if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || done) throw error;
              await stop.nap();
              continue;
            }
          }
          // Read after the stop was seen: what is at the end now is all there will be.
          const done = stop.stopped;
          const buffer = Buffer.allocUnsafe(chunkBytes);
          const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
          if (bytesRead > 0) {
            position += bytesRead;
            this.push(buffer.subarray(0, bytesRead));
            return;
          }
          if (done) {
            this.push(null);
            return;
          }
          await stop.nap();
        }
      };
      next().catch((error: unknown) => this.destroy(error as Error));
    },
    destroy(error, callback) {
      const closing = handle?.close() ?? Promise.resolve();
      handle = undefined;
      closing.then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
}
