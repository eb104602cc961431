/**
 * What became of each publish a messaging scenario sent (issue 39, the soak's checker): acknowledged
 * (a success answer naming the message ids), refused (a definite error answer) or indeterminate (no
 * answer: a timeout, a reset, a refused connection mid-request), with when it was sent and answered.
 * The counters say how many; the checker needs which, so each fate is kept by iteration index.
 *
 * Bounded for long runs: parallel arrays of numbers (32 bytes a publish: a 1 h soak at 200/s is 23 MB),
 * the message ids (never bodies) of at most `idLimit` publishes, and past `fateLimit` publishes nothing
 * more, only a count of what was not kept, which the checker reports (a fate not kept is never
 * called lost). A part's log crosses to the main thread by structured clone and logs merge by
 * concatenation: an iteration is sent by one part only.
 */
import type { PublishFate } from '../../protocol/scenario.ts';

/** A part's fates, as they cross threads; `answeredAt` is NaN for an indeterminate one. */
export interface FatePart {
  readonly index: readonly number[];
  readonly fate: readonly number[];
  readonly sentAt: readonly number[];
  readonly answeredAt: readonly number[];
  /** The message ids of an acknowledged publish, space-separated; '' when not kept (or none). */
  readonly ids: readonly string[];
  /** Fates not kept (past the limit), and acknowledged publishes whose ids were not kept. */
  readonly droppedFates: number;
  readonly droppedIds: number;
}

/** One publish's fate, read back. */
export interface PublishRecord {
  readonly index: number;
  readonly fate: PublishFate;
  readonly sentAt: number;
  readonly answeredAt?: number;
  readonly ids?: readonly string[];
}

/** Every fate, in the order the log numbers them. */
export const publishFates: readonly PublishFate[] = ['acknowledged', 'refused', 'indeterminate'];

/** Fates kept per part; a 3 h soak at 200/s is 2.2 M. */
export const fateLimit = 4_000_000;
/** Publishes whose message ids are kept per part (about 40 bytes an id). */
export const idLimit = 1_000_000;

export class FateLog {
  readonly #index: number[] = [];
  readonly #fate: number[] = [];
  readonly #sentAt: number[] = [];
  readonly #answeredAt: number[] = [];
  readonly #ids: string[] = [];
  #withIds = 0;
  #droppedFates = 0;
  #droppedIds = 0;

  readonly limits: { readonly fates: number; readonly ids: number };

  constructor(limits = { fates: fateLimit, ids: idLimit }) {
    this.limits = limits;
  }

  add(index: number, fate: PublishFate, sentAt: number, answeredAt: number | undefined, ids?: readonly string[]): void {
    if (this.#index.length >= this.limits.fates) {
      this.#droppedFates++;
      return;
    }
    this.#index.push(index);
    this.#fate.push(publishFates.indexOf(fate));
    this.#sentAt.push(sentAt);
    this.#answeredAt.push(answeredAt ?? Number.NaN);
    if (ids === undefined || ids.length === 0) this.#ids.push('');
    else if (this.#withIds >= this.limits.ids) {
      this.#ids.push('');
      this.#droppedIds++;
    } else {
      this.#withIds++;
      this.#ids.push(ids.join(' '));
    }
  }

  part(): FatePart {
    return {
      index: this.#index,
      fate: this.#fate,
      sentAt: this.#sentAt,
      answeredAt: this.#answeredAt,
      ids: this.#ids,
      droppedFates: this.#droppedFates,
      droppedIds: this.#droppedIds,
    };
  }
}

/** Every part's fates in one part (an iteration is sent by one part: no two hold the same index). */
export function mergeFates(parts: readonly (FatePart | undefined)[]): FatePart {
  const given = parts.filter((part): part is FatePart => part !== undefined);
  return {
    index: given.flatMap((part) => part.index),
    fate: given.flatMap((part) => part.fate),
    sentAt: given.flatMap((part) => part.sentAt),
    answeredAt: given.flatMap((part) => part.answeredAt),
    ids: given.flatMap((part) => part.ids),
    droppedFates: given.reduce((sum, part) => sum + part.droppedFates, 0),
    droppedIds: given.reduce((sum, part) => sum + part.droppedIds, 0),
  };
}

/** Each publish of a part, read back (in the order kept). */
export function* publishRecords(part: FatePart): Generator<PublishRecord> {
  for (let at = 0; at < part.index.length; at++) {
    const answeredAt = part.answeredAt[at] as number;
    const ids = part.ids[at];
    yield {
      index: part.index[at] as number,
      fate: publishFates[part.fate[at] as number] as PublishFate,
      sentAt: part.sentAt[at] as number,
      ...(!Number.isNaN(answeredAt) && { answeredAt }),
      ...(ids && { ids: ids.split(' ') }),
    };
  }
}
