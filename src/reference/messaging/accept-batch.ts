/**
 * Gathers the publishes that arrive close together and stores them as one Redis call
 * (MessageStore.acceptMany): at saturation many publishes are handled per event-loop turn, and a
 * script call of its own for each cost the client a command (queue node, timer, reply) and Redis a
 * call per message. A publish waits at most until the event loop's next check phase (setImmediate),
 * so a lone publish is not delayed by a timer. Each caller's promise settles with its batch: a failed
 * batch rejects every publish in it (each answers 500, as a failed call of its own did).
 */
import type { StoredMessage } from './stored-message.ts';

export interface AcceptItem {
  readonly message: StoredMessage;
  /** The deduplication key's id part; none when the publish has no deduplication id. */
  readonly dedupId?: string;
  /**
   * Stored straight into inflight (as if claimed at this Unix ms), not due: the dispatcher starts it
   * from memory, so no claim reads it back; a restart still finds it (recover).
   */
  readonly inflightAt?: number;
}

/** The stored id (the earlier message's when deduplicated). */
export interface Accepted {
  readonly id: string;
  readonly deduplicated: boolean;
}

interface Pending {
  readonly item: AcceptItem;
  readonly resolve: (accepted: Accepted) => void;
  readonly reject: (error: unknown) => void;
}

/** More publishes than this go in more than one call (each argument list stays a bounded size). */
const maxBatch = 256;

export class AcceptBatch {
  readonly #acceptMany: (items: readonly AcceptItem[]) => Promise<Accepted[]>;
  #pending: Pending[] = [];
  #scheduled = false;

  constructor(acceptMany: (items: readonly AcceptItem[]) => Promise<Accepted[]>) {
    this.#acceptMany = acceptMany;
  }

  accept(item: AcceptItem): Promise<Accepted> {
    return new Promise<Accepted>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (this.#pending.length >= maxBatch) this.#flush();
      else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    this.#acceptMany(batch.map(({ item }) => item)).then(
      (answers) => {
        batch.forEach(({ resolve, reject }, at) => {
          const answer = answers[at];
          if (answer === undefined) reject(new Error('Redis answered fewer accepted messages than were sent'));
          else resolve(answer);
        });
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  }
}
