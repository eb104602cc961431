/**
 * The key-value counters checked for lost updates after each recovery (issue 39 item 3): right after a
 * fault is healed the soak reads the scenario's counters (its `readBack`), and each must hold at least
 * the increments of every update whose success answer came before the read was sent. Fewer is a lost
 * update: the implementation said it committed, and the recovery lost it. More is no finding here
 * (an update still in flight, or one without an answer, may have run); the scenario's own finish judges
 * the end exactly. Pure: fates and readings in (Unix ms), a shortfall per reading out.
 */

/** An update's fate as the checker needs it: `ids` names a counter once per increment. */
export interface UpdateFate {
  readonly fate: 'acknowledged' | 'refused' | 'indeterminate';
  readonly answeredAt?: number;
  readonly ids?: readonly string[];
}

/** One read-back after a heal: when it was begun, and the values or why none came. */
export interface ReadBackResult {
  readonly faultId: string;
  readonly at: number;
  readonly values?: Readonly<Record<string, number>>;
  readonly error?: string;
}

export interface RecoveryUpdates {
  readonly faultId: string;
  readonly at: number;
  /** Counters below their committed increments: by how much, summed; null when the read failed. */
  readonly lost: number | null;
  /** Per counter: what it held and what was committed before the read. */
  readonly counters: readonly { readonly name: string; readonly value: number; readonly committed: number }[];
  readonly error?: string;
}

export function checkUpdates(fates: Iterable<UpdateFate>, readings: readonly ReadBackResult[]): RecoveryUpdates[] {
  const sorted = [...readings].sort((a, b) => a.at - b.at);
  // Each acknowledged increment, by when its answer came: one pass over the fates for every reading.
  const increments: { readonly at: number; readonly name: string }[] = [];
  for (const item of fates) {
    if (item.fate !== 'acknowledged' || item.answeredAt === undefined) continue;
    for (const name of item.ids ?? []) increments.push({ at: item.answeredAt, name });
  }
  increments.sort((a, b) => a.at - b.at);
  const committed = new Map<string, number>();
  let next = 0;
  return sorted.map((reading): RecoveryUpdates => {
    while (next < increments.length && (increments[next] as { at: number }).at < reading.at) {
      const { name } = increments[next] as { name: string };
      committed.set(name, (committed.get(name) ?? 0) + 1);
      next++;
    }
    if (reading.values === undefined) {
      return {
        faultId: reading.faultId,
        at: reading.at,
        lost: null,
        counters: [],
        error: reading.error ?? 'no values',
      };
    }
    const names = new Set([...Object.keys(reading.values), ...committed.keys()]);
    const counters = [...names].sort().map((name) => ({
      name,
      value: reading.values?.[name] ?? 0,
      committed: committed.get(name) ?? 0,
    }));
    const lost = counters.reduce((sum, item) => sum + Math.max(0, item.committed - item.value), 0);
    return { faultId: reading.faultId, at: reading.at, lost, counters };
  });
}
