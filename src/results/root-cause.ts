/**
 * A root cause common to most of a target's failures, derived from its case results alone: a wrong
 * token makes a hundred cases fail or block, each on its own rule, and a reader should see the one
 * cause first. Honest by construction: a cause is named only when the reasons themselves show it
 * (a status received, a connection refused), in at least `minimumShare` of the cases that failed,
 * blocked or ended in error, and only when there are at least `minimumCases` of them. It says how
 * many of how many; the verdicts themselves are left as they are.
 */
import type { CaseResult, ConformanceRun } from './conformance-run.ts';
import type { VerdictKind } from './verdict.ts';

export interface RootCause {
  /** What the cases share, as the reasons say it: `status 401`, `connection refused`. */
  readonly cause: string;
  /** Cases whose reason shows it. */
  readonly cases: number;
  /** Cases that failed, blocked or ended in error. */
  readonly of: number;
  /** What to check, one clause. */
  readonly hint: string;
}

/** Kinds that mean "this did not work": the cases a root cause explains. */
const explained: ReadonlySet<VerdictKind> = new Set(['fail', 'blocked', 'error']);

/** At least four in five of the cases that did not work. */
export const minimumShare = 0.8;
/** Fewer cases than this are read one by one, without a summary. */
export const minimumCases = 5;

/**
 * A status the case received, as checks write it (`received status 401`, `status 401 {…}`, `status
 * 401 (application/json)`), never the one it expected (`expected status 200`); 2xx is no cause.
 */
const receivedStatus = /(?<!expected )\b(?:status|answered) ([1-5]\d\d)\b/g;

const connectionCauses: readonly { readonly pattern: RegExp; readonly cause: string }[] = [
  { pattern: /refused the connection|ECONNREFUSED/i, cause: 'connection refused' },
  { pattern: /connection (?:was )?reset|ECONNRESET/i, cause: 'connection reset' },
  { pattern: /\btimed out\b/i, cause: 'timed out' },
];

/** The causes one reason shows (each once). */
export function causesIn(reason: string): Set<string> {
  const causes = new Set<string>();
  for (const match of reason.matchAll(receivedStatus)) {
    const status = match[1] ?? '';
    if (!status.startsWith('2')) causes.add(`status ${status}`);
  }
  for (const { pattern, cause } of connectionCauses) if (pattern.test(reason)) causes.add(cause);
  return causes;
}

function hintFor(cause: string): string {
  const status = Number(cause.replace('status ', ''));
  if (status === 401) return 'check the token or credentials the target gives';
  if (status === 403) return 'check the permissions of the token the target gives';
  if (status === 404 || status === 405) return 'check the target URLs (a base path, a port)';
  if (status === 429) return 'the target rate-limits the suite: raise its limit for the run';
  if (status >= 500 && status < 600) return 'the target fails on its side: see its logs';
  if (cause === 'connection refused') return 'nothing listens at a target URL';
  if (cause === 'connection reset') return 'something between the harness and the target drops connections';
  if (cause === 'timed out') return 'the target is stalled or too slow for the suite';
  return 'look at what the target answers';
}

/** The dominant cause of one target's results, or undefined when none is shared by enough of them. */
export function rootCauseOf(results: readonly Pick<CaseResult, 'verdict'>[]): RootCause | undefined {
  const notWorking = results.filter((result) => explained.has(result.verdict.kind));
  if (notWorking.length < minimumCases) return undefined;
  const counts = new Map<string, number>();
  for (const result of notWorking) {
    const reason = 'reason' in result.verdict ? result.verdict.reason : '';
    for (const cause of causesIn(reason)) counts.set(cause, (counts.get(cause) ?? 0) + 1);
  }
  // The most shared cause; ties go to the first seen (the order of the results, stable).
  let best: [string, number] | undefined;
  for (const entry of counts) if (best === undefined || entry[1] > best[1]) best = entry;
  if (best === undefined || best[1] < minimumShare * notWorking.length) return undefined;
  return { cause: best[0], cases: best[1], of: notWorking.length, hint: hintFor(best[0]) };
}

/** `root cause: prod: 160 of 162 cases that failed, blocked or ended in error saw status 401: check …` */
export function rootCauseLine(target: string, cause: RootCause): string {
  return `root cause: ${target}: ${cause.cases} of ${cause.of} cases that failed, blocked or ended in error saw ${cause.cause}: ${cause.hint}`;
}

/**
 * One line per target that has a root cause, in target order. A target that could not be used at all
 * has its own one-line problem already.
 */
export function rootCauseLines(run: Pick<ConformanceRun, 'targets'>): string[] {
  return run.targets.flatMap((target) => {
    const cause = target.problem === undefined ? rootCauseOf(target.cases) : undefined;
    return cause === undefined ? [] : [rootCauseLine(target.name, cause)];
  });
}
