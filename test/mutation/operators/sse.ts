/**
 * SSE streams, passed through event by event: one event dropped (the first, or the second), the
 * second sent twice, the second and third swapped, or `data:` lines re-prefixed as `event:`.
 */
import type { Operator, SseMutator } from '../operator.ts';

function sseOperator(id: string, what: string, make: () => SseMutator): Operator {
  return { id: `sse.${id}`, family: 'sse', sides: ['front'], what, sse: make };
}

/** A mutator that changes the event at index `at` (0-based) and passes the others. */
function atIndex(at: number, change: (event: string) => string[]): () => SseMutator {
  return () => {
    let index = 0;
    return {
      event: (event) => (index++ === at ? change(event) : [event]),
      end: () => [],
    };
  };
}

export const sseOperators: readonly Operator[] = [
  sseOperator(
    'first-event-dropped',
    'the first event left out',
    atIndex(0, () => []),
  ),
  sseOperator(
    'event-dropped',
    'the second event left out',
    atIndex(1, () => []),
  ),
  sseOperator(
    'event-duplicated',
    'the second event sent twice',
    atIndex(1, (event) => [event, event]),
  ),
  sseOperator('events-swapped', 'the second and third events swapped', () => {
    let index = 0;
    let held: string | undefined;
    return {
      event(event) {
        const at = index++;
        if (at === 1) {
          held = event;
          return [];
        }
        if (at === 2 && held !== undefined) {
          const out = [event, held];
          held = undefined;
          return out;
        }
        return [event];
      },
      // A stream that ends before a third event: the held one goes out last, as it came.
      end: () => (held === undefined ? [] : [held]),
    };
  }),
  sseOperator('data-reprefixed', 'data: lines sent as event: lines', () => ({
    event: (event) => [event.replace(/^data:/gm, 'event:')],
    end: () => [],
  })),
];
