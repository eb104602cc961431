/**
 * The `publish-write-behind` fault switch (issue 39, the soak's proof): a publish is acknowledged at
 * once and its message held in memory, written to Redis only on the next flush (every `periodMs`). A
 * graceful stop flushes what is held; a SIGKILL loses exactly what was held, as a service with a
 * write-behind cache does. No conformance case can see it (every message is delivered when nothing
 * kills the service): the soak's checker does, and names those messages lost.
 *
 * Its own record, for the test that holds the soak to it: with a record file, each id is appended as
 * `acknowledged <id>` before its answer is sent, as `writing <id>` when its flush begins, and as
 * `persisted <id>` once Redis answered the write that stores it (synchronously, so a kill cannot lose a
 * line the process wrote: the kernel has it). An id without its writing line was lost for certain; one
 * with it and without its persisted line may have been (a kill between the store's reply and the line
 * is the one window the record cannot close). "Just before the write" was not enough: @redis/client
 * sends on the next setImmediate and a message is several commands, so a slow machine's kill between
 * the line and the bytes lost a whole flush the record called stored.
 */
import { appendFileSync } from 'node:fs';
import type { StoredMessage } from './stored-message.ts';

/** How long a publish is held in memory before it is written: a kill within it loses the publish. */
export const writeBehindPeriodMs = 1000;

export interface Accepted {
  readonly id: string;
  readonly deduplicated: boolean;
}

type Accept = (message: StoredMessage, dedupId?: string, inflightAt?: number) => Promise<Accepted>;

interface Held {
  readonly message: StoredMessage;
  readonly dedupId?: string;
}

export class WriteBehind {
  readonly #write: Accept;
  readonly #record: string | undefined;
  readonly #written: () => void;
  readonly #warn: (line: string) => void;
  #held: Held[] = [];
  #flushing: Promise<void> = Promise.resolve();
  readonly #timer: NodeJS.Timeout;

  /** `write`: the store's own accept; `written`: told after each flush (the dispatcher's poke). */
  constructor(
    write: Accept,
    record: string | undefined,
    written: () => void,
    warn: (line: string) => void,
    periodMs = writeBehindPeriodMs,
  ) {
    this.#write = write;
    this.#record = record;
    this.#written = written;
    this.#warn = warn;
    this.#timer = setInterval(() => void this.flush(), periodMs);
    this.#timer.unref();
  }

  /** Acknowledges at once: the message is held until the next flush (never deduplicated). */
  accept: Accept = async (message, dedupId) => {
    this.#note('acknowledged', [message.id]);
    this.#held.push({ message, ...(dedupId !== undefined && { dedupId }) });
    return { id: message.id, deduplicated: false };
  };

  /** Writes what is held, one flush at a time. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      const batch = this.#held;
      if (batch.length === 0) return;
      this.#held = [];
      this.#note(
        'writing',
        batch.map((item) => item.message.id),
      );
      const results = await Promise.allSettled(
        batch.map(async (item) => {
          await this.#write(item.message, item.dedupId);
          this.#note('persisted', [item.message.id]);
        }),
      );
      const failed = results.filter((result) => result.status === 'rejected').length;
      if (failed > 0) this.#warn(`publish-write-behind: ${failed} held messages could not be written`);
      this.#written();
    });
    return this.#flushing;
  }

  /** A graceful stop writes what is held: only a kill loses it. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  #note(what: 'acknowledged' | 'writing' | 'persisted', ids: readonly string[]): void {
    if (this.#record === undefined || ids.length === 0) return;
    appendFileSync(this.#record, ids.map((id) => `${what} ${id}\n`).join(''));
  }
}
