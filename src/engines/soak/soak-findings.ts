/**
 * The soak's checker run over what the load handed on (issue 39 item 3): each messaging scenario's
 * evidence (every publish's fate, every key's first arrival at the sink) against the faults as they
 * happened, then the soak's thresholds over all of it. A scenario is judged against the faults whose
 * window meets its own publishes' span only: scenarios run in turn, and a fault during the first has
 * no first success to find among the second's publishes.
 */
import { checkSoak, type FaultWindow, type SoakCheck } from '../../results/soak-check.ts';
import { judgeSoakThresholds, type NamedUpdates, type SoakThresholdResult } from '../../results/soak-thresholds.ts';
import type { TrendSeries } from '../../results/soak-trends.ts';
import { checkUpdates, type ReadBackResult } from '../../results/soak-updates.ts';
import type { Threshold } from '../../results/threshold.ts';
import { type FatePart, publishRecords } from '../load/fate-log.ts';
import type { MessagingEvidence } from '../load/messaging-evidence.ts';
import type { DoneFault } from './nemesis.ts';

/** How many lost keys and undelivered indeterminates soak.json lists by id; the counts are always whole. */
export const listLimit = 1000;

export interface ScenarioFindings {
  readonly scenario: string;
  readonly check: SoakCheck;
  /** Publishes whose fate was not kept (past the fate log's bound), and acknowledgements whose ids were not. */
  readonly droppedFates: number;
  readonly droppedIds: number;
}

/** A key-value scenario's fates and its read-backs after each heal (its `readBack`). */
export interface UpdateEvidence {
  readonly scenario: string;
  readonly fates: FatePart;
  readonly readings: readonly ReadBackResult[];
}

export interface SoakFindings {
  readonly scenarios: readonly ScenarioFindings[];
  /** The key-value counters after each recovery, per scenario with a read-back. */
  readonly updates: readonly NamedUpdates[];
  readonly thresholds: readonly SoakThresholdResult[];
  readonly ok: boolean;
  /**
   * The run was interrupted: the sink's wait was cut short, so a key not arrived yet is not final.
   * The lists stand as found; no threshold of the soak's is judged over them.
   */
  readonly interrupted?: true;
}

/** The faults that were done, as the checker reads them. */
export function faultWindows(faults: readonly DoneFault[]): FaultWindow[] {
  return faults
    .filter((fault) => fault.error === undefined)
    .map((fault) => ({
      id: fault.id,
      text: fault.text,
      startAt: fault.startAt,
      healedAt: fault.healedAt,
      ...(fault.cut === true && { cut: true }),
    }));
}

/** From a scenario's first send to its last answer, and its last send. */
function span(evidence: MessagingEvidence): { from: number; to: number; lastSent: number } | undefined {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  let lastSent = Number.NEGATIVE_INFINITY;
  for (const item of evidence.iterations) {
    from = Math.min(from, item.sentAt);
    lastSent = Math.max(lastSent, item.sentAt);
    to = Math.max(to, item.answeredAt ?? item.sentAt);
  }
  return Number.isFinite(from) ? { from, to, lastSent } : undefined;
}

export function soakFindings(
  evidence: readonly MessagingEvidence[],
  faults: readonly DoneFault[],
  thresholds: readonly Threshold[],
  updateEvidence: readonly UpdateEvidence[] = [],
  interrupted = false,
  trends: readonly TrendSeries[] = [],
): SoakFindings {
  const updates = updateEvidence.map(
    (item): NamedUpdates => ({
      scenario: item.scenario,
      recoveries: checkUpdates(publishRecords(item.fates), item.readings),
    }),
  );
  const windows = faultWindows(faults);
  const scenarios = evidence.map((item): ScenarioFindings => {
    const own = span(item);
    // A fault healed after the scenario's last send has no publish to recover into: cut, as one the end cut.
    const near =
      own === undefined
        ? []
        : windows
            .filter((fault) => fault.startAt <= own.to && fault.healedAt >= own.from)
            .map((fault) => (fault.healedAt > own.lastSent ? { ...fault, cut: true } : fault));
    return {
      scenario: item.scenario,
      check: checkSoak(item.iterations, item.arrivals, near),
      droppedFates: item.droppedFates,
      droppedIds: item.droppedIds,
    };
  });
  const actions = new Map(faults.map((fault) => [fault.id, fault.action]));
  const judged = judgeSoakThresholds(
    interrupted ? [] : thresholds,
    scenarios.map(({ scenario, check }) => ({ scenario, check })),
    actions,
    updates,
    trends,
  );
  return {
    scenarios,
    updates,
    thresholds: judged,
    ok: judged.every((item) => item.ok),
    ...(interrupted && { interrupted: true as const }),
  };
}

/** soak.json's form: the lists cut to `listLimit` (with their whole counts), times as ISO strings. */
export function findingsJson(findings: SoakFindings) {
  return {
    ok: findings.ok,
    ...(findings.interrupted && { interrupted: true }),
    thresholds: findings.thresholds,
    updates: findings.updates.map(({ scenario, recoveries }) => ({
      scenario,
      recoveries: recoveries.map((item) => ({ ...item, at: new Date(item.at).toISOString() })),
    })),
    scenarios: findings.scenarios.map(({ scenario, check, droppedFates, droppedIds }) => ({
      scenario,
      acknowledged: check.acknowledged,
      refused: check.refused,
      indeterminate: check.indeterminate,
      expectedKeys: check.expectedKeys,
      lostCount: check.lost.length,
      lost: check.lost.slice(0, listLimit).map((item) => ({ ...item, sentAt: new Date(item.sentAt).toISOString() })),
      undelivered: check.undelivered
        .slice(0, listLimit)
        .map((item) => ({ ...item, sentAt: new Date(item.sentAt).toISOString() })),
      duplicates: check.duplicates,
      unexpected: check.unexpected,
      ...(droppedFates > 0 && { droppedFates }),
      ...(droppedIds > 0 && { droppedIds }),
      faults: check.faults,
    })),
  };
}
