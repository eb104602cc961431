/**
 * A root cause common to most of a target's failures, derived from its case results alone: a wrong
 * token makes a hundred cases fail or block, each on its own rule, and a reader should see the one
 * cause first. Honest by construction: a cause is named only when the reasons themselves show it
 * (a status received, a connection refused), in at least `minimumShare` of the cases that failed,
 * blocked or ended in error, and only when there are at least `minimumCases` of them. It says how
 * many of how many; the verdicts themselves are left as they are. A target that stopped answering
 * during the run (the cases not run for it carry when: `CaseResult.stop`) is said so, with its last
 * answer and the first case that got none, rather than as a URL where nothing listens.
 */
import type { CaseResult, ConformanceRun, TargetStop } from './conformance-run.ts';
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

/** Causes that mean no answer came at all. */
const silentCauses: ReadonlySet<string> = new Set(['connection refused', 'connection reset', 'timed out']);

const connectionCauses: readonly { readonly pattern: RegExp; readonly cause: string }[] = [
  { pattern: /refused the connection|ECONNREFUSED/i, cause: 'connection refused' },
  // As the HTTP client words them (transportError): a socket closed before the answer, no answer in time.
  {
    pattern: /connection (?:was )?reset|ECONNRESET|closed the connection without an answer/i,
    cause: 'connection reset',
  },
  { pattern: /\btimed out\b|did not answer within/i, cause: 'timed out' },
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

/**
 * How a stop reads, with times a reader finds in the target's logs: `its last answer came at
 * 2026-11-28T17:40:12.345Z (to kv.a); the first case to get none: kv.b, at 2026-11-28T17:40:12.401Z`.
 */
export function stopLine(stop: TargetStop): string {
  const last = stop.lastAnswer
    ? `its last answer came at ${stop.lastAnswer.at} (to ${stop.lastAnswer.caseId})`
    : 'no case got an answer (only the probe before the run did)';
  return `${last}; the first case to get none: ${stop.firstSilence.caseId}, at ${stop.firstSilence.at}`;
}

type Judged = Pick<CaseResult, 'verdict' | 'stop'>;

const reasonOf = (result: Judged) => ('reason' in result.verdict ? result.verdict.reason : '');

/** The most shared cause and its count; ties go to the first seen (the order of the results, stable). */
function mostShared(results: readonly Judged[], keep: (cause: string) => boolean = () => true) {
  const counts = new Map<string, number>();
  for (const result of results) {
    for (const cause of causesIn(reasonOf(result))) if (keep(cause)) counts.set(cause, (counts.get(cause) ?? 0) + 1);
  }
  let best: [string, number] | undefined;
  for (const entry of counts) if (best === undefined || entry[1] > best[1]) best = entry;
  return best;
}

/**
 * The target stopped answering mid-run, when the cases not run for it and those that got no answer
 * make up enough of the cases that did not work: said with when, so the reader looks at the target's
 * logs of that moment.
 */
function stoppedCause(notWorking: readonly Judged[]): RootCause | undefined {
  const stop = notWorking.find((result) => result.stop !== undefined)?.stop;
  if (stop === undefined) return undefined;
  const silent = notWorking.filter(
    (result) => result.stop !== undefined || [...causesIn(reasonOf(result))].some((cause) => silentCauses.has(cause)),
  );
  if (silent.length < minimumShare * notWorking.length) return undefined;
  const how = mostShared(silent, (cause) => silentCauses.has(cause));
  return {
    cause: 'the target stop answering during the run',
    cases: silent.length,
    of: notWorking.length,
    hint: `${stopLine(stop)}${how === undefined ? '' : ` (${how[0]})`}; see whether it crashed or restarted then`,
  };
}

/** The dominant cause of one target's results, or undefined when none is shared by enough of them. */
export function rootCauseOf(results: readonly Judged[]): RootCause | undefined {
  const notWorking = results.filter((result) => explained.has(result.verdict.kind));
  if (notWorking.length < minimumCases) return undefined;
  const stopped = stoppedCause(notWorking);
  if (stopped !== undefined) return stopped;
  const best = mostShared(notWorking);
  if (best !== undefined && best[1] >= minimumShare * notWorking.length) {
    return { cause: best[0], cases: best[1], of: notWorking.length, hint: hintFor(best[0]) };
  }
  return dependencyCause(notWorking);
}

/**
 * A capability most cases rest on, broken (issue 35): the cases blocked on one rule, with those failing
 * it, make up enough of the cases that did not work. A target that encodes every reply unasked blocked
 * 127 cases on B.encoding.base64 and failed one; the reader should fix that one first.
 */
function dependencyCause(notWorking: readonly Judged[]): RootCause | undefined {
  const blockedOn = new Map<string, number>();
  for (const result of notWorking) {
    const rule = result.verdict.kind === 'blocked' ? result.verdict.rule : undefined;
    if (rule !== undefined) blockedOn.set(rule, (blockedOn.get(rule) ?? 0) + 1);
  }
  let best: [string, number] | undefined;
  for (const entry of blockedOn) if (best === undefined || entry[1] > best[1]) best = entry;
  if (best === undefined) return undefined;
  const [rule, blocked] = best;
  const failing = notWorking.filter((result) => result.verdict.kind === 'fail' && result.verdict.rule === rule).length;
  if (blocked + failing < minimumShare * notWorking.length) return undefined;
  return {
    cause: `${rule} broken (${blocked} blocked on it, ${failing} failing it)`,
    cases: blocked + failing,
    of: notWorking.length,
    hint: `the blocked cases rest on what ${rule} judges: ${failing > 0 ? `fix the ${failing === 1 ? 'case' : `${failing} cases`} failing it first` : 'no case of this run judged it'}`,
  };
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
