/**
 * The run's events as the records every live output writes (issue 38): metric points once a second
 * while a load scenario runs, and events (run, target, case, scenario, threshold, problem). Pure: no
 * file, no clock of its own (`now` is handed in), so each output kind (NDJSON today; Prometheus remote
 * write and OTLP to come) maps the same records to its own wire format and nothing else.
 *
 * Names follow k6 where k6 has one: `http_reqs` (counter: requests that ended, completed or failed),
 * `http_req_failed` (rate: the share of those that failed), `http_req_duration` (trend: latency of the
 * completed answers, ms), `dropped_iterations` (counter: arrivals due but never sent), `checks` (rate:
 * the share of a check's outcomes that passed). Counters carry what happened since the series' last
 * point, so a consumer adds them up; a scenario's end carries, marked `final`, whatever its live points
 * had not counted (requests ended in the drain, `finish`'s checks, all of a k6 run), so the points of
 * a scenario add up to its result exactly, in all, per tag set and per check.
 *
 * Beside them: each threshold's current value once a second (`threshold`, a gauge, with whether it
 * holds) and an event when it crosses (`threshold_crossed`); a scenario's phases (`phase_start`,
 * `phase_end`: its warm-up, its measured load); and a messaging scenario's streams (labelled `stream`):
 * each second the arrivals the sink saw (`messages_arrived`, `messages_repeated`, counters) and the
 * second's `message_latency` of first arrivals; at the end the accounting only the end knows, which
 * keys were expected (`messages_expected`, `_received`, `_lost`, …, the whole scenario's
 * `message_latency`), with final arrival points that make the live ones add up to it (message-records.ts).
 */
import type { CaseResult } from '../../results/conformance-run.ts';
import { gateOf } from '../../results/conformance-run.ts';
import type { HarnessRun } from '../../results/harness-run.ts';
import type { CheckTotals, RequestCounts, ScenarioResult, ThresholdResult } from '../../results/load-run.ts';
import type {
  FaultChange,
  LoadProgress,
  PhaseChange,
  ResourceReading,
  RunStart,
  ScenarioStart,
} from '../../results/reporter.ts';
import { verdictRule } from '../../results/verdict.ts';
import type { EventRecord, LiveRecord, RecordLabels } from './live-record-types.ts';
import { type ArrivalsCounted, liveMessagePoints, messagePoints } from './message-records.ts';

export type {
  CounterPoint,
  EventRecord,
  LiveRecord,
  MessageArrivalPoint,
  MessageCounterPoint,
  MessageLatencyPoint,
  MessageSecondLatencyPoint,
  MessageStream,
  MetricPoint,
  RatePoint,
  RecordLabels,
  ThresholdPoint,
  TrendPoint,
} from './live-record-types.ts';

const zero: RequestCounts = { sent: 0, completed: 0, failed: 0, dropped: 0 };

const tagKey = (tags: Readonly<Record<string, string>>) =>
  Object.keys(tags)
    .sort()
    .map((key) => `${key}=${tags[key]}`)
    .join(',');

/** What a series of a scenario was given so far: requests that ended, failed and dropped; checks. */
interface Counted {
  ended: number;
  failed: number;
  dropped: number;
}

/** A running scenario's labels and what its points have counted so far. */
interface ScenarioState {
  readonly labels: RecordLabels;
  readonly buckets: Map<string, { tags: Readonly<Record<string, string>>; counted: Counted }>;
  readonly checks: Map<string, { passes: number; fails: number }>;
  lastElapsedS: number;
  lastSecond: number;
  /** Each threshold's last told state (by expression): a change is a crossing. */
  readonly holds: Map<string, boolean>;
  /** The messaging streams' arrivals counted so far. */
  readonly arrivals: ArrivalsCounted;
}

/**
 * Requests by tag set, summing to `all`: each tag set's own, and the ones counted without tags
 * (requests cut short when the run ended, k6's drops) in the empty set's, where a scenario that tags
 * nothing has all of its requests.
 */
function bucketsOf(
  all: RequestCounts,
  tags: readonly { readonly tags: Readonly<Record<string, string>>; readonly requests: RequestCounts }[],
): Map<string, { tags: Readonly<Record<string, string>>; requests: RequestCounts }> {
  const buckets = new Map<string, { tags: Readonly<Record<string, string>>; requests: RequestCounts }>();
  let rest = all;
  const take = (key: string, tagSet: Readonly<Record<string, string>>, requests: RequestCounts) => {
    const known = buckets.get(key)?.requests ?? zero;
    buckets.set(key, {
      tags: tagSet,
      requests: {
        sent: known.sent + requests.sent,
        completed: known.completed + requests.completed,
        failed: known.failed + requests.failed,
        dropped: known.dropped + requests.dropped,
      },
    });
  };
  for (const entry of tags) {
    take(tagKey(entry.tags), entry.tags, entry.requests);
    rest = {
      sent: rest.sent - entry.requests.sent,
      completed: rest.completed - entry.requests.completed,
      failed: rest.failed - entry.requests.failed,
      dropped: rest.dropped - entry.requests.dropped,
    };
  }
  if (rest.completed !== 0 || rest.failed !== 0 || rest.dropped !== 0) take('', {}, rest);
  return buckets;
}

/** Each check's totals by name (a scenario's `finish` may add one of a name its load checks had). */
function checksByName(checks: readonly CheckTotals[]): Map<string, { passes: number; fails: number }> {
  const byName = new Map<string, { passes: number; fails: number }>();
  for (const check of checks) {
    const known = byName.get(check.name) ?? { passes: 0, fails: 0 };
    byName.set(check.name, { passes: known.passes + check.passes, fails: known.fails + check.fails });
  }
  return byName;
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;
const share = (count: number, total: number) => (total === 0 ? 0 : round(count / total, 6));

/**
 * The records of one run, made event by event. Each method returns the records its event makes, in
 * the order they are to be written.
 */
export class LiveRecords {
  readonly #now: () => Date;
  #runId: string | undefined;
  #target: string | undefined;
  readonly #scenarios = new Map<string, ScenarioState>();

  constructor(now: () => Date = () => new Date()) {
    this.#now = now;
  }

  #labels(more: RecordLabels = {}): RecordLabels {
    return { ...(this.#runId !== undefined && { run_id: this.#runId }), ...more };
  }

  #event(event: EventRecord['event'], labels: RecordLabels, facts: Readonly<Record<string, unknown>>): EventRecord {
    return { type: 'event', time: this.#now().toISOString(), event, labels, ...facts };
  }

  runStart(start: RunStart): LiveRecord[] {
    this.#runId = start.runId;
    return [
      this.#event('run_start', this.#labels(), {
        command: start.command,
        started_at: start.startedAt,
        report_dir: start.reportDir,
      }),
    ];
  }

  target(name: string, embedded: boolean): LiveRecord[] {
    this.#target = name;
    return [this.#event('target', this.#labels({ target: name }), { embedded })];
  }

  caseResult(result: CaseResult): LiveRecord[] {
    const { verdict } = result;
    const rule = verdictRule(verdict);
    return [
      this.#event('case', this.#labels({ target: result.target }), {
        case_id: result.caseId,
        area: result.area,
        verdict: verdict.kind,
        rules: result.rules,
        ...(rule !== undefined && { rule }),
        ...('reason' in verdict && { reason: verdict.reason }),
        duration_ms: round(result.durationMs),
      }),
    ];
  }

  problem(line: string): LiveRecord[] {
    return [this.#event('problem', this.#labels(), { line })];
  }

  scenarioStart(name: string, line: string, start: ScenarioStart): LiveRecord[] {
    const labels = this.#labels({ scenario: name, engine: start.engine, target: start.target });
    this.#scenarios.set(`${name}\u0000${start.engine}`, {
      labels,
      buckets: new Map(),
      checks: new Map(),
      lastElapsedS: 0,
      lastSecond: -1,
      holds: new Map(),
      arrivals: new Map(),
    });
    this.#target = start.target;
    return [this.#event('scenario_start', labels, { line, embedded: start.embedded, duration_s: start.durationS })];
  }

  #state(scenario: string, engine: string | undefined): ScenarioState | undefined {
    const exact = this.#scenarios.get(`${scenario}\u0000${engine ?? ''}`);
    if (exact || engine !== undefined) return exact;
    return [...this.#scenarios.entries()].find(([key]) => key.startsWith(`${scenario}\u0000`))?.[1];
  }

  /**
   * The points of one progress event: per tag set what ended, failed and dropped since the last
   * event, each check's outcomes since then, the last whole second's latency, and a messaging
   * scenario's arrivals per stream since the last event.
   */
  progress(progress: LoadProgress): LiveRecord[] {
    const state = this.#state(progress.scenario, progress.engine);
    if (state === undefined || progress.requests === undefined) return [];
    const time = this.#now().toISOString();
    const elapsed = round(progress.elapsedS);
    const interval = Math.max(0.001, progress.elapsedS - state.lastElapsedS);
    state.lastElapsedS = progress.elapsedS;
    const live = { time, elapsed_s: elapsed };
    const points: LiveRecord[] = [];
    for (const [key, bucket] of bucketsOf(progress.requests, progress.tags ?? [])) {
      points.push(...this.#requestPoints(state, key, bucket.tags, bucket.requests, live, interval));
    }
    points.push(...this.#checkPoints(state, checksByName(progress.checks ?? []), live));
    const last = progress.lastSecond;
    if (last !== undefined && last.second > state.lastSecond && last.latencyMs.count > 0) {
      state.lastSecond = last.second;
      const { count, p50, p90, p99, max } = last.latencyMs;
      points.push({
        type: 'point',
        metric: 'http_req_duration',
        kind: 'trend',
        unit: 'ms',
        labels: state.labels,
        time,
        second: last.second,
        count,
        p50,
        p90,
        p99,
        max,
      });
    }
    points.push(...liveMessagePoints(state.labels, state.arrivals, progress.messages ?? [], live, interval));
    for (const threshold of progress.thresholds ?? []) {
      points.push(
        {
          type: 'point',
          metric: 'threshold',
          kind: 'gauge',
          labels: { ...state.labels, threshold: threshold.expression },
          time,
          elapsed_s: elapsed,
          value: threshold.value === null ? null : round(threshold.value, 6),
          ok: threshold.ok,
          threshold_metric: threshold.metric,
          source: threshold.source,
        },
        ...this.#crossing(state, threshold, { elapsed_s: elapsed }),
      );
    }
    return points;
  }

  /** A `threshold_crossed` event when a threshold's state differs from the one last told (none the first time). */
  #crossing(
    state: ScenarioState,
    threshold: ThresholdResult,
    at: { readonly elapsed_s: number } | { readonly final: true },
  ): EventRecord[] {
    const was = state.holds.get(threshold.expression);
    state.holds.set(threshold.expression, threshold.ok);
    if (was === undefined || was === threshold.ok) return [];
    return [
      this.#event('threshold_crossed', state.labels, {
        expression: threshold.expression,
        metric: threshold.metric,
        source: threshold.source,
        ok: threshold.ok,
        was_ok: was,
        value: threshold.value,
        ...at,
      }),
    ];
  }

  /** A scenario's phase begins or ends: its warm-up (unmeasured), its measured load. */
  phase(change: PhaseChange): LiveRecord[] {
    const state = this.#state(change.scenario, change.engine);
    const labels =
      state?.labels ??
      this.#labels({
        scenario: change.scenario,
        engine: change.engine,
        ...(this.#target && { target: this.#target }),
      });
    return [
      this.#event(change.edge === 'start' ? 'phase_start' : 'phase_end', labels, {
        phase: change.phase,
        duration_s: change.durationS,
      }),
    ];
  }

  /** A soak's fault done to the implementation, or healed. */
  /** A soak's sample of a process: its resident memory, and its cores when it had a previous sample. */
  resources(reading: ResourceReading): LiveRecord[] {
    const base = {
      type: 'point',
      kind: 'gauge',
      labels: this.#labels({ ...(this.#target && { target: this.#target }), process: reading.process }),
      time: this.#now().toISOString(),
      elapsed_s: round(reading.elapsedS),
    } as const;
    return [
      { ...base, metric: 'process_resident_memory_bytes', unit: 'bytes', value: reading.rssBytes },
      ...(reading.cpuCores === null
        ? []
        : [{ ...base, metric: 'process_cpu_cores', unit: 'cores', value: round(reading.cpuCores) } as const]),
    ];
  }

  fault(change: FaultChange): LiveRecord[] {
    return [
      this.#event(
        change.edge === 'start' ? 'fault_start' : 'fault_end',
        this.#labels(this.#target ? { target: this.#target } : {}),
        {
          fault_id: change.id,
          fault: change.fault,
          action: change.action,
          ...(change.path !== undefined && { path: change.path }),
          elapsed_s: round(change.elapsedS),
          ...(change.error !== undefined && { error: change.error }),
          ...(change.cut === true && { cut: true }),
        },
      ),
    ];
  }

  /** http_reqs and http_req_failed (always), dropped_iterations (when some) of one tag set since its last point. */
  #requestPoints(
    state: ScenarioState,
    key: string,
    tags: Readonly<Record<string, string>>,
    requests: RequestCounts,
    at: { readonly time: string; readonly elapsed_s?: number; readonly final?: true },
    intervalS?: number,
  ): LiveRecord[] {
    const bucket = state.buckets.get(key) ?? { tags, counted: { ended: 0, failed: 0, dropped: 0 } };
    state.buckets.set(key, bucket);
    const ended = requests.completed + requests.failed - bucket.counted.ended;
    const failed = requests.failed - bucket.counted.failed;
    const dropped = requests.dropped - bucket.counted.dropped;
    bucket.counted = {
      ended: requests.completed + requests.failed,
      failed: requests.failed,
      dropped: requests.dropped,
    };
    const labels = state.labels;
    const points: LiveRecord[] = [];
    if (!at.final || ended !== 0 || failed !== 0) {
      points.push(
        {
          type: 'point',
          metric: 'http_reqs',
          kind: 'counter',
          labels,
          tags,
          ...at,
          value: ended,
          ...(intervalS !== undefined && { rate: round(ended / intervalS) }),
        },
        {
          type: 'point',
          metric: 'http_req_failed',
          kind: 'rate',
          labels,
          tags,
          ...at,
          value: share(failed, ended),
          count: failed,
          total: ended,
        },
      );
    }
    if (dropped !== 0) {
      points.push({
        type: 'point',
        metric: 'dropped_iterations',
        kind: 'counter',
        labels,
        tags,
        ...at,
        value: dropped,
        ...(intervalS !== undefined && { rate: round(dropped / intervalS) }),
      });
    }
    return points;
  }

  /** One `checks` point per check with outcomes since its last point. */
  #checkPoints(
    state: ScenarioState,
    checks: ReadonlyMap<string, { passes: number; fails: number }>,
    at: { readonly time: string; readonly elapsed_s?: number; readonly final?: true },
  ): LiveRecord[] {
    const points: LiveRecord[] = [];
    for (const [name, totals] of checks) {
      const counted = state.checks.get(name) ?? { passes: 0, fails: 0 };
      const passes = totals.passes - counted.passes;
      const total = passes + totals.fails - counted.fails;
      state.checks.set(name, { ...totals });
      if (total === 0) continue;
      points.push({
        type: 'point',
        metric: 'checks',
        kind: 'rate',
        labels: { ...state.labels, check: name },
        tags: {},
        ...at,
        value: share(passes, total),
        count: passes,
        total,
      });
    }
    return points;
  }

  /**
   * A scenario's end: the final points (what the live ones had not counted), its thresholds' results,
   * then its own event with the result's totals.
   */
  scenarioEnd(result: ScenarioResult): LiveRecord[] {
    const state =
      this.#state(result.name, result.engine) ??
      ({
        labels: this.#labels({
          scenario: result.name,
          engine: result.engine,
          ...(this.#target && { target: this.#target }),
        }),
        buckets: new Map(),
        checks: new Map(),
        lastElapsedS: 0,
        lastSecond: -1,
        holds: new Map(),
        arrivals: new Map(),
      } satisfies ScenarioState);
    this.#scenarios.delete(`${result.name}\u0000${result.engine}`);
    const at = { time: this.#now().toISOString(), final: true } as const;
    const records: LiveRecord[] = [];
    const buckets = bucketsOf(result.requests, result.tags);
    // A series the live points counted and the result has not (none should) is taken back to zero.
    for (const [key, bucket] of state.buckets)
      if (!buckets.has(key)) buckets.set(key, { tags: bucket.tags, requests: zero });
    for (const [key, bucket] of buckets) {
      records.push(...this.#requestPoints(state, key, bucket.tags, bucket.requests, at));
    }
    records.push(...this.#checkPoints(state, checksByName(result.checks), at));
    records.push(...messagePoints(state.labels, result, at, state.arrivals));
    for (const threshold of result.thresholds) {
      records.push(
        ...this.#crossing(state, threshold, { final: true }),
        this.#event('threshold', state.labels, {
          expression: threshold.expression,
          metric: threshold.metric,
          source: threshold.source,
          ok: threshold.ok,
          value: threshold.value,
        }),
      );
    }
    const { count, p50, p90, p99, max } = result.latencyMs;
    records.push(
      this.#event('scenario_end', state.labels, {
        requests: result.requests,
        requests_per_second: round(result.throughput.requestsPerSecond),
        latency_ms: { count, p50, p90, p99, max },
        duration_ms: round(result.durationMs),
        ...(result.problem !== undefined && { problem: result.problem }),
      }),
    );
    return records;
  }

  runEnd(run: HarnessRun, facts: Readonly<Record<string, unknown>> = {}): LiveRecord[] {
    return [
      this.#event('run_end', this.#labels(), {
        exit_code: run.exitCode,
        gate: gateOf(run.exitCode),
        duration_ms: run.durationMs,
        problems: run.problems.length,
        ...(run.aborted !== undefined && { aborted: run.aborted }),
        ...facts,
      }),
    ];
  }
}
