/**
 * k6-syntax thresholds (`http_req_duration{batch:100}: p(99)<50`): parsed and checked before a run
 * starts, so a typo is a usage error in the first second rather than a gate that silently never
 * fires, and evaluated over a finished ScenarioResult. Two choices differ from k6 on purpose:
 * - no data (no tag entry matches, no request for a rate, an empty histogram, no fan-out accounting)
 *   gives `value: null, ok: false`: k6 passes such a threshold, but a gate that saw nothing must not pass;
 * - a threshold given twice is an error: k6 keeps one silently, which hides an edit that went wrong.
 * Latencies come from the encoded histograms by decode and add, so every percentile is exact. They
 * hold completed answers only (the recorder keeps failures out), so a run of refusals has no latency
 * and its `http_req_duration` threshold fails as no data instead of passing on the refusals' speed.
 */
import { harnessError } from '../shared/errors.ts';
import {
  type Histogram,
  type HistogramHolder,
  type LatencySummary,
  liveHistogram,
  mergeEncoded,
  summarize,
  summarizeAsDecoded,
} from './histogram.ts';
import type { ScenarioResult, TagMetrics, ThresholdResult } from './load-run.ts';

export type ThresholdSource = 'scenario' | 'cli';
/**
 * `estimate`: one value with its 95% interval, judged by `value`, `lower` or `upper` (the soak's memory
 * slope; the load has none).
 */
export type MetricKind = 'trend' | 'rate' | 'counter' | 'estimate';

export interface Threshold {
  /** Normalised: `metric{k:v}: agg op n` (tags in the order given, no tag block when there are none). */
  readonly text: string;
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  /** `avg`, `min`, `max`, `med`, `p(99.9)`, `rate` or `count`. */
  readonly aggregation: string;
  readonly operator: string;
  readonly bound: number;
  readonly source: ThresholdSource;
}

/** Trends are in ms, rates are fractions 0..1, counters are counts (their `rate` is per second). */
export const knownMetrics: Readonly<Record<string, MetricKind>> = {
  http_req_duration: 'trend',
  delivery_latency: 'trend',
  callback_latency: 'trend',
  failure_callback_latency: 'trend',
  waiter_latency: 'trend',
  complete_latency: 'trend',
  http_req_failed: 'rate',
  checks: 'rate',
  http_reqs: 'counter',
  dropped_iterations: 'counter',
  commands: 'counter',
  lost_updates: 'counter',
  doubled_updates: 'counter',
  delivery_lost: 'counter',
  delivery_duplicated: 'counter',
  delivery_out_of_order: 'counter',
  messages_lost: 'counter',
  messages_duplicated: 'counter',
};

const aggregationsOf: Readonly<Record<MetricKind, readonly string[]>> = {
  trend: ['avg', 'min', 'max', 'med', 'p(N)'],
  rate: ['rate'],
  counter: ['count', 'rate'],
  estimate: [],
};

/** The aggregations every vocabulary reads the same; an estimate's are its vocabulary's own. */
const commonAggregations = ['avg', 'min', 'max', 'med', 'rate', 'count'];

/** k6's operators; longest first so `<=` is not read as `<` followed by `=5`. */
const operators = ['===', '==', '!=', '<=', '>=', '<', '>'];

/** A messaging scenario's streams, as `{stream:…}` names them, and their field of the accounting. */
type ArrivalStreamName = 'delivery' | 'callback' | 'failureCallback' | 'waiter';

const streamFields: Readonly<Record<ArrivalStreamName, 'delivery' | 'callbacks' | 'failureCallbacks' | 'waiters'>> = {
  delivery: 'delivery',
  callback: 'callbacks',
  failureCallback: 'failureCallbacks',
  waiter: 'waiters',
};

/** A messaging stream's latency metric → its stream; `delivery_latency` is kv-fanout's too. */
const streamTrends: Readonly<Record<string, ArrivalStreamName>> = {
  delivery_latency: 'delivery',
  callback_latency: 'callback',
  failure_callback_latency: 'failureCallback',
  waiter_latency: 'waiter',
};

/** The messaging counters, summed over every stream unless `{stream:…}` names one. */
const messageCounters: Readonly<Record<string, 'lost' | 'duplicated'>> = {
  messages_lost: 'lost',
  messages_duplicated: 'duplicated',
};

/**
 * The http_* metrics select TagMetrics entries by any tag, and a messaging stream's metrics select
 * its per-tag accounting (`{endpoint:e3}`) the same way; the others know only these.
 */
const tagsAllowed = (metric: string): readonly string[] | 'any' =>
  metric.startsWith('http_') || Object.hasOwn(streamTrends, metric) || Object.hasOwn(messageCounters, metric)
    ? 'any'
    : metric === 'checks'
      ? ['scenario', 'check']
      : ['scenario'];

/**
 * The metrics a family of thresholds names, the tags each takes, and the aggregations each kind has
 * (the load's, or the soak's).
 */
export interface ThresholdVocabulary {
  readonly metrics: Readonly<Record<string, MetricKind>>;
  readonly tags: (metric: string) => readonly string[] | 'any';
  readonly aggregations: Readonly<Record<MetricKind, readonly string[]>>;
}

const loadVocabulary: ThresholdVocabulary = { metrics: knownMetrics, tags: tagsAllowed, aggregations: aggregationsOf };

export function parseThreshold(
  text: string,
  source: ThresholdSource,
  vocabulary: ThresholdVocabulary = loadVocabulary,
): Threshold {
  // JSON quoting keeps the message one line even when the text holds a newline.
  const fail = (why: string) => harnessError('SVC_USAGE', `threshold ${JSON.stringify(text)}: ${why}`);
  const trimmed = text.trim();
  if (trimmed === '') throw fail('empty; expected METRIC[{tag:value,...}]:EXPRESSION');

  const nameEnd = trimmed.search(/[{:]/);
  const metric = (nameEnd === -1 ? trimmed : trimmed.slice(0, nameEnd)).trim();
  if (metric.includes('}')) throw fail('unbalanced brace: } without {');
  if (!/^[a-z_][a-z0-9_]*$/.test(metric)) throw fail(`bad metric name "${metric}"; expected [a-z_][a-z0-9_]*`);
  const metrics = vocabulary.metrics;
  if (!Object.hasOwn(metrics, metric)) {
    throw fail(`unknown metric ${metric}; known: ${Object.keys(metrics).join(', ')}`);
  }
  const kind = metrics[metric]!;

  let rest = nameEnd === -1 ? '' : trimmed.slice(nameEnd);
  const tags: Record<string, string> = {};
  const allowed = vocabulary.tags(metric);
  if (rest.startsWith('{')) {
    const close = rest.indexOf('}');
    if (close === -1) throw fail('unbalanced brace: { without }');
    const block = rest.slice(1, close);
    if (block.includes('{')) throw fail('unbalanced brace: { inside a tag block');
    for (const part of block.trim() === '' ? [] : block.split(',')) {
      const colon = part.indexOf(':');
      const key = colon === -1 ? '' : part.slice(0, colon).trim();
      const value = colon === -1 ? '' : part.slice(colon + 1).trim();
      if (key === '' || value === '') throw fail(`bad tag "${part.trim()}"; expected key:value`);
      if (Object.hasOwn(tags, key)) throw fail(`tag ${key} given twice`);
      if (allowed !== 'any' && !allowed.includes(key)) {
        throw fail(`${metric} takes no tag ${key}; its tags: ${allowed.join(', ')}`);
      }
      tags[key] = value;
    }
    rest = rest.slice(close + 1).trimStart();
  }
  const stream = tags.stream;
  if (stream !== undefined && !Object.hasOwn(messageCounters, metric)) {
    throw fail(`${metric} takes no tag stream; messages_lost and messages_duplicated do`);
  }
  if (stream !== undefined && !Object.hasOwn(streamFields, stream)) {
    throw fail(`unknown stream ${stream}; streams: ${Object.keys(streamFields).join(', ')}`);
  }
  if (rest.startsWith('}')) throw fail('unbalanced brace: } without {');
  if (!rest.startsWith(':')) throw fail(`expected ":" and an expression after ${metric}`);

  const expression = rest.slice(1).trim();
  if (expression === '') throw fail('missing expression; expected AGGREGATION OPERATOR NUMBER');
  const token = /^[A-Za-z_]\w*(?:\([^)]*\))?/.exec(expression)?.[0] ?? '';
  let aggregation = token;
  if (token.startsWith('p(')) {
    const inside = token.slice(2, -1).trim();
    const percentile = Number(inside);
    if (!/^\d+(\.\d+)?$/.test(inside) || percentile <= 0 || percentile > 100) {
      throw fail(`bad percentile ${token}; expected p(N) with 0 < N <= 100`);
    }
    aggregation = `p(${percentile})`;
  } else if (!commonAggregations.includes(token) && !vocabulary.aggregations.estimate.includes(token)) {
    const names = ['avg', 'min', 'max', 'med', 'p(N)', 'rate', 'count', ...vocabulary.aggregations.estimate];
    throw fail(`unknown aggregation "${token}"; expected ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
  }
  const family = aggregation.startsWith('p(') ? 'p(N)' : aggregation;
  const supported = vocabulary.aggregations[kind];
  if (!supported.includes(family)) {
    throw fail(`${metric} is a ${kind} metric and does not support ${aggregation}; supported: ${supported.join(', ')}`);
  }

  const afterAggregation = expression.slice(token.length).trimStart();
  const operator = operators.find((candidate) => afterAggregation.startsWith(candidate));
  if (operator === undefined) throw fail(`expected an operator (${operators.join(' ')}) after ${aggregation}`);
  const number = afterAggregation.slice(operator.length).trim();
  if (number === '') throw fail(`missing the number after ${operator}`);
  const bound = Number(number);
  if (!Number.isFinite(bound)) throw fail(`"${number}" is not a finite number`);

  const tagText = Object.entries(tags)
    .map(([key, value]) => `${key}:${value}`)
    .join(',');
  const normalised = `${metric}${tagText === '' ? '' : `{${tagText}}`}: ${aggregation} ${operator} ${bound}`;
  return { text: normalised, metric, tags, aggregation, operator, bound, source };
}

/** Parses every text; the same threshold twice (tags in any order, `50` and `50.0` alike) is an error. */
export function parseThresholds(
  texts: readonly string[],
  source: ThresholdSource,
  vocabulary: ThresholdVocabulary = loadVocabulary,
): Threshold[] {
  const seen = new Map<string, string>();
  return texts.map((text) => {
    const threshold = parseThreshold(text, source, vocabulary);
    const tags = Object.entries(threshold.tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const key = JSON.stringify([threshold.metric, tags, threshold.aggregation, threshold.operator, threshold.bound]);
    const first = seen.get(key);
    if (first !== undefined) {
      throw harnessError('SVC_USAGE', `threshold ${JSON.stringify(text)}: duplicate of ${JSON.stringify(first)}`);
    }
    seen.set(key, text);
    return threshold;
  });
}

/** Applies to a scenario? (its `scenario` tag, if any, names it) */
export function appliesTo(threshold: Threshold, scenarioName: string): boolean {
  const named = threshold.tags.scenario;
  return named === undefined || named === scenarioName;
}

/** The http_* data: the whole scenario without selecting tags, else the tag entries carrying them all. */
function selectedTags(threshold: Threshold, scenario: ScenarioResult): readonly TagMetrics[] | 'all' {
  const wanted = Object.entries(threshold.tags).filter(([key]) => key !== 'scenario');
  if (wanted.length === 0) return 'all';
  return scenario.tags.filter((entry) =>
    wanted.every(([key, value]) => Object.hasOwn(entry.tags, key) && String(entry.tags[key]) === value),
  );
}

/** Which summary field each named trend aggregation reads (`med` is the median, p50). */
const summaryField = { avg: 'mean', min: 'min', max: 'max', med: 'p50' } as const;

/** The trend aggregation of a histogram as decoding gives it, in ms; null when it holds nothing. */
function aggregateOf(histogram: Histogram, aggregation: string, summary: (histogram: Histogram) => LatencySummary) {
  if (histogram.totalCount === 0) return null;
  // A percentile other than the summary's: read from the histogram (its counts), rounded as summarize does.
  if (aggregation.startsWith('p(')) {
    return Math.round(histogram.getValueAtPercentile(Number(aggregation.slice(2, -1)))) / 1000;
  }
  return summary(histogram)[summaryField[aggregation as keyof typeof summaryField]];
}

/**
 * The trend aggregation of the holders' histograms merged, in ms; null when they hold nothing. One
 * holding its live histogram (a live threshold's, liveHistogram) is read as it stands, with the min and
 * max decoding would give it, so live and end judge alike; the rest are decoded and added.
 */
function trendValue(aggregation: string, holders: readonly HistogramHolder[]): number | null {
  const [only] = holders;
  const live = holders.length === 1 ? only?.[liveHistogram] : undefined;
  if (live !== undefined) return aggregateOf(live, aggregation, summarizeAsDecoded);
  const histogram: Histogram = mergeEncoded(holders.map((holder) => holder.histogram));
  try {
    return aggregateOf(histogram, aggregation, summarize);
  } finally {
    histogram.destroy();
  }
}

/**
 * The counters read from the scenario as a whole (http_reqs, which tags can select, is apart).
 * Unreported lost/doubled updates and fan-out counts are no data: a scenario that did not (or could
 * not, its final check failed) account for them has not shown there were none.
 */
const counters: Readonly<Record<string, (scenario: ScenarioResult) => number | null>> = {
  dropped_iterations: (scenario) => scenario.requests.dropped,
  commands: (scenario) => scenario.commands,
  lost_updates: (scenario) => scenario.accounting.lostUpdates ?? null,
  doubled_updates: (scenario) => scenario.accounting.doubledUpdates ?? null,
  delivery_lost: (scenario) => scenario.accounting.delivery?.lost ?? null,
  delivery_duplicated: (scenario) => scenario.accounting.delivery?.duplicated ?? null,
  delivery_out_of_order: (scenario) => scenario.accounting.delivery?.outOfOrder ?? null,
};

/** The value the threshold compares, or null when there is no data (or it is for another scenario). */
export function thresholdValue(threshold: Threshold, scenario: ScenarioResult): number | null {
  if (!appliesTo(threshold, scenario.name)) return null;
  const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : null);
  const selected = selectedTags(threshold, scenario);
  const requests = selected === 'all' ? [scenario.requests] : selected.map((entry) => entry.requests);
  const sum = (field: 'failed' | 'sent') => requests.reduce((total, item) => total + item[field], 0);
  switch (threshold.metric) {
    case 'http_req_duration':
      return trendValue(threshold.aggregation, selected === 'all' ? [scenario] : selected);
    case 'delivery_latency':
    case 'callback_latency':
    case 'failure_callback_latency':
    case 'waiter_latency': {
      // One meaning for both: send → arrival (kv-fanout's publish → event, a messaging delivery's publish → request).
      const fanout = threshold.metric === 'delivery_latency' ? scenario.accounting.delivery : undefined;
      if (fanout !== undefined) {
        return Object.keys(selectors(threshold)).length > 0 ? null : trendValue(threshold.aggregation, [fanout]);
      }
      const parts = streamParts(threshold, scenario, streamTrends[threshold.metric] as ArrivalStreamName);
      return parts === null ? null : trendValue(threshold.aggregation, parts);
    }
    case 'complete_latency': {
      const complete = scenario.accounting.messaging?.complete;
      return complete === undefined ? null : trendValue(threshold.aggregation, [complete]);
    }
    case 'http_req_failed':
      return ratio(sum('failed'), sum('sent'));
    case 'checks': {
      const name = threshold.tags.check;
      const checks = scenario.checks.filter((check) => name === undefined || check.name === name);
      const passes = checks.reduce((total, check) => total + check.passes, 0);
      return ratio(passes, passes + checks.reduce((total, check) => total + check.fails, 0));
    }
  }
  const counted = messageCounters[threshold.metric];
  const read =
    threshold.metric === 'http_reqs'
      ? () => (requests.length === 0 ? null : sum('sent'))
      : counted !== undefined
        ? () => messageCount(threshold, scenario, counted)
        : counters[threshold.metric];
  if (read === undefined) throw harnessError('SVC_INTERNAL', `threshold ${JSON.stringify(threshold.text)}: no metric`);
  const count = read(scenario);
  return count === null || threshold.aggregation === 'count' ? count : ratio(count, scenario.durationMs / 1000);
}

/** The tags a threshold selects by, besides `scenario` (and `stream`, which picks the stream itself). */
function selectors(threshold: Threshold): Record<string, string> {
  return Object.fromEntries(Object.entries(threshold.tags).filter(([key]) => key !== 'scenario' && key !== 'stream'));
}

/** A stream's counts, or those of its per-tag entries carrying every selected tag; null when absent. */
function streamParts(
  threshold: Threshold,
  scenario: ScenarioResult,
  stream: ArrivalStreamName,
): readonly { readonly lost: number; readonly duplicated: number; readonly histogram: string }[] | null {
  const accounting = scenario.accounting.messaging?.[streamFields[stream]];
  if (accounting === undefined) return null;
  const wanted = Object.entries(selectors(threshold));
  if (wanted.length === 0) return [accounting];
  const entries = accounting.byTags.filter((entry) => wanted.every(([key, value]) => entry.tags[key] === value));
  return entries.length === 0 ? null : entries;
}

/** Lost or duplicated messages: of the stream `{stream:…}` names, else of every stream the scenario has. */
function messageCount(threshold: Threshold, scenario: ScenarioResult, field: 'lost' | 'duplicated'): number | null {
  const named = threshold.tags.stream;
  if (named !== undefined && !Object.hasOwn(streamFields, named)) return null;
  const streams =
    named === undefined ? (Object.keys(streamFields) as ArrivalStreamName[]) : [named as ArrivalStreamName];
  let total: number | null = null;
  for (const stream of streams) {
    const parts = streamParts(threshold, scenario, stream);
    if (parts === null) continue;
    total = (total ?? 0) + parts.reduce((sum, part) => sum + part[field], 0);
  }
  return total;
}

/** `==` and `===` are the same on numbers; k6 accepts both. */
const comparisons: Readonly<Record<string, (value: number, bound: number) => boolean>> = {
  '<': (value, bound) => value < bound,
  '<=': (value, bound) => value <= bound,
  '>': (value, bound) => value > bound,
  '>=': (value, bound) => value >= bound,
  '==': (value, bound) => value === bound,
  '===': (value, bound) => value === bound,
  '!=': (value, bound) => value !== bound,
};

/** Whether `value` meets the threshold's bound; no data (null) never does. */
export function meets(threshold: Threshold, value: number | null): boolean {
  return value !== null && comparisons[threshold.operator]?.(value, threshold.bound) === true;
}

/** Every threshold that applies to the scenario, evaluated, in the given order. */
export function evaluateThresholds(thresholds: readonly Threshold[], scenario: ScenarioResult): ThresholdResult[] {
  return thresholds
    .filter((threshold) => appliesTo(threshold, scenario.name))
    .map((threshold) => {
      const value = thresholdValue(threshold, scenario);
      const ok = meets(threshold, value);
      return { expression: threshold.text, metric: threshold.metric, source: threshold.source, ok, value };
    });
}
