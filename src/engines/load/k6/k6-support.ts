/**
 * What k6 cannot run, and why: one rule for the load command and the k6-operator manifest. Only the
 * SSE fan-out is left out: the messaging scenarios run on k6 (their publishers in k6, their sink in
 * the harness), whatever their area.
 */
import type { Scenario } from '../../../protocol/scenario.ts';

/** Why k6 cannot run a scenario, or undefined when it can. */
export function k6Lacks(scenario: Pick<Scenario, 'fanout'>): string | undefined {
  return scenario.fanout
    ? 'its subscribers read server-sent events, which k6 has no client for in its core (and no SSE extension is served to build one in)'
    : undefined;
}
