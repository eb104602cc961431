/**
 * Mutants from a clean run: every operator × every route class seen, kept where the operator can
 * change at least one recorded exchange of the class (a dry run of its phase). Each mutant carries
 * the cases whose exchanges it would change, and their rules, so its run is limited to them. A fixed
 * seed picks a sample that spreads over every family and area when the budget is smaller than the
 * list.
 */
import { seededRandom } from '../../src/protocol/scenario.ts';
import { type Area, describeExchange } from './exchange.ts';
import { appliesTo, type Family, type MutationContext, type TargetCredentials } from './operator.ts';
import { operatorsFor } from './operators/catalog.ts';
import type { Recording } from './record-run.ts';

export interface PlannedMutant {
  /** `<operator id> @ <route class>`. */
  readonly id: string;
  readonly operatorId: string;
  readonly family: Family;
  readonly area: Area;
  readonly routeClass: string;
  readonly what: string;
  /** The first exchange of the clean run it changes, one line. */
  readonly example: string;
  readonly cases: readonly string[];
  /** The rules of every case it changes: the full run. */
  readonly rules: readonly string[];
  /**
   * The rules of its cheapest cases, when fewer: a first run with them is enough to catch it; only a
   * mutant that survives them is run again with every rule, so a survivor is always a full run's.
   */
  readonly quickRules?: readonly string[];
}

/**
 * The dry runs try at most this many exchanges of a class per case (in order): a case that sends a
 * thousand alike requests (a property test) would otherwise make planning take minutes.
 */
const exchangesPerCase = 12;

function firstPerCase<T extends { readonly caseIds: readonly string[] }>(items: readonly T[]): T[] {
  const seen = new Map<string, number>();
  return items.filter((item) => {
    const key = item.caseIds.join(' ');
    const count = seen.get(key) ?? 0;
    seen.set(key, count + 1);
    return count < exchangesPerCase;
  });
}

/** How much clean-run case time a quick run may select. */
const quickBudgetMs = 2_500;

/** The rules of the cheapest changed cases whose selection (every case naming one) fits the budget. */
function quickRules(recording: Recording, changed: ReadonlySet<string>): string[] {
  const chosen = new Set<string>();
  const cost = (rules: ReadonlySet<string>) =>
    recording.cases
      .filter((item) => item.rules.some((rule) => rules.has(rule)))
      .reduce((sum, item) => sum + item.durationMs, 0);
  const candidates = recording.cases.filter((item) => changed.has(item.id)).sort((a, b) => a.durationMs - b.durationMs);
  for (const item of candidates) {
    const next = new Set([...chosen, ...item.rules]);
    if (chosen.size === 0 || cost(next) <= quickBudgetMs) for (const rule of item.rules) chosen.add(rule);
  }
  return [...chosen].sort();
}

function dryContext(recording: Recording, side: 'front' | 'delivery', credentials: TargetCredentials): MutationContext {
  return {
    area: side === 'delivery' ? 'messaging' : recording.area,
    side,
    credentials,
    signingKeys: async () => ['dry-run-key'],
    memory: new Map(),
  };
}

export async function planMutants(recording: Recording, credentials: TargetCredentials): Promise<PlannedMutant[]> {
  const rulesOf = new Map(recording.cases.map((item) => [item.id, item.rules]));
  const byClass = new Map<string, Recording['exchanges'][number][]>();
  for (const item of recording.exchanges) {
    if (item.caseIds.length === 0) continue;
    byClass.set(item.exchange.routeClass, [...(byClass.get(item.exchange.routeClass) ?? []), item]);
  }
  const mutants: PlannedMutant[] = [];
  for (const [routeClass, all] of [...byClass].sort(([a], [b]) => a.localeCompare(b))) {
    const items = firstPerCase(all);
    for (const operator of operatorsFor(items.map((item) => item.exchange))) {
      const context = dryContext(recording, items[0]?.exchange.side ?? 'front', credentials);
      const cases = new Set<string>();
      let example: string | undefined;
      for (const item of items) {
        if (!(await appliesTo(operator, item.exchange, context))) continue;
        for (const id of item.caseIds) cases.add(id);
        example ??= describeExchange(item.exchange);
      }
      if (cases.size === 0 || example === undefined) continue;
      const rules = [...new Set([...cases].flatMap((id) => rulesOf.get(id) ?? []))].sort();
      const quick = quickRules(recording, cases);
      mutants.push({
        id: `${operator.id} @ ${routeClass}`,
        operatorId: operator.id,
        family: operator.family,
        area: recording.area,
        routeClass,
        what: operator.what,
        example,
        cases: [...cases].sort(),
        rules,
        ...(quick.length < rules.length && { quickRules: quick }),
      });
    }
  }
  return mutants;
}

/**
 * At most `max` mutants: shuffled with the seed within each family × area, then taken round-robin
 * across those groups, so every group is tried before any is tried twice.
 */
export function sampleMutants(mutants: readonly PlannedMutant[], max: number, seed: number): PlannedMutant[] {
  if (mutants.length <= max) return [...mutants];
  // The scenarios' mulberry32, so a sample is the same on every run.
  const random = seededRandom(seed);
  const groups = new Map<string, PlannedMutant[]>();
  for (const mutant of mutants) {
    const key = `${mutant.family} ${mutant.area}`;
    groups.set(key, [...(groups.get(key) ?? []), mutant]);
  }
  const queues = [...groups.keys()].sort().map((key) => {
    const list = [...(groups.get(key) ?? [])];
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [list[i], list[j]] = [list[j] as PlannedMutant, list[i] as PlannedMutant];
    }
    return list;
  });
  const picked: PlannedMutant[] = [];
  while (picked.length < max) {
    let took = false;
    for (const queue of queues) {
      const next = queue.shift();
      if (next && picked.length < max) {
        picked.push(next);
        took = true;
      }
    }
    if (!took) break;
  }
  return picked;
}
