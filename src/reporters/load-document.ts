/**
 * The `load` part of report.json: each scenario in a fixed key order (so two reports diff line by
 * line), with its encoded histogram, time series, thresholds and accounting (a messaging scenario's
 * `messaging`: each stream's exact counts, latency and per-second arrivals). Schema: the `load`
 * definition in schemas/report.schema.json.
 */
import type {
  LatencySummary,
  LoadRun,
  MessagingAccounting,
  ScenarioResult,
  StreamAccounting,
} from '../results/load-run.ts';

function latency(summary: LatencySummary) {
  return {
    count: summary.count,
    min: summary.min,
    mean: summary.mean,
    p50: summary.p50,
    p90: summary.p90,
    p99: summary.p99,
    p999: summary.p999,
    max: summary.max,
  };
}

const round = (value: number) => Math.round(value * 1000) / 1000;

function stream(accounting: StreamAccounting | undefined) {
  if (!accounting) return null;
  return {
    expected: accounting.expected,
    received: accounting.received,
    lost: accounting.lost,
    duplicated: accounting.duplicated,
    unexpected: accounting.unexpected,
    ...(accounting.unexpectedKeys !== undefined && { unexpectedKeys: accounting.unexpectedKeys }),
    badSignatures: accounting.badSignatures,
    latencyMs: latency(accounting.latencyMs),
    histogram: accounting.histogram,
    byTags: accounting.byTags.map((item) => ({
      tags: { ...item.tags },
      expected: item.expected,
      received: item.received,
      lost: item.lost,
      duplicated: item.duplicated,
      latencyMs: latency(item.latencyMs),
      histogram: item.histogram,
    })),
  };
}

/** A messaging scenario's accounting as the model has it; a stream it does not have is null. */
function messagingEntry(messaging: MessagingAccounting | undefined) {
  if (!messaging) return null;
  return {
    accepted: messaging.accepted,
    waitedS: round(messaging.waitedS),
    strays: messaging.strays,
    unclassified: messaging.unclassified,
    signatures: {
      verified: messaging.signatures.verified,
      failed: messaging.signatures.failed,
      unchecked: messaging.signatures.unchecked,
      replays: messaging.signatures.replays,
    },
    delivery: stream(messaging.delivery),
    callbacks: stream(messaging.callbacks),
    failureCallbacks: stream(messaging.failureCallbacks),
    waiters: stream(messaging.waiters),
    complete: messaging.complete
      ? { latencyMs: latency(messaging.complete.latencyMs), histogram: messaging.complete.histogram }
      : null,
    series: messaging.series.map((point) => ({
      second: point.second,
      stream: point.stream,
      count: point.count,
      p50: point.p50,
      p99: point.p99,
      max: point.max,
    })),
  };
}

function scenarioEntry(scenario: ScenarioResult) {
  const { delivery } = scenario.accounting;
  return {
    name: scenario.name,
    title: scenario.title,
    engine: scenario.engine,
    model: scenario.model,
    settings: {
      rate: scenario.settings.rate ?? null,
      ramp: scenario.settings.ramp ?? null,
      durationS: scenario.settings.durationS,
      warmupS: scenario.settings.warmupS ?? null,
      connections: scenario.settings.connections,
      workers: scenario.settings.workers,
      segments: scenario.settings.segments ?? null,
      k6Version: scenario.settings.k6Version ?? null,
      seed: scenario.settings.seed,
      batch: scenario.settings.batch ? [...scenario.settings.batch] : null,
      valueSize: scenario.settings.valueSize ? [...scenario.settings.valueSize] : null,
      params: scenario.settings.params ? { ...scenario.settings.params } : null,
    },
    startedAt: scenario.startedAt,
    durationMs: scenario.durationMs,
    problem: scenario.problem ?? null,
    requests: { ...scenario.requests },
    commands: scenario.commands,
    throughput: {
      requestsPerSecond: round(scenario.throughput.requestsPerSecond),
      commandsPerSecond: round(scenario.throughput.commandsPerSecond),
    },
    latencyMs: latency(scenario.latencyMs),
    histogram: scenario.histogram,
    thresholds: scenario.thresholds.map((threshold) => ({
      expression: threshold.expression,
      metric: threshold.metric,
      source: threshold.source,
      ok: threshold.ok,
      value: threshold.value,
    })),
    checks: scenario.checks.map((check) => ({ name: check.name, passes: check.passes, fails: check.fails })),
    errors: scenario.errors.map((error) => ({ kind: error.kind, count: error.count, example: error.example })),
    counters: { ...scenario.counters },
    lostUpdates: scenario.accounting.lostUpdates ?? null,
    doubledUpdates: scenario.accounting.doubledUpdates ?? null,
    unknownOutcomes: scenario.accounting.unknownOutcomes ?? null,
    delivery: delivery
      ? {
          subscribers: delivery.subscribers,
          expected: delivery.expected,
          received: delivery.received,
          lost: delivery.lost,
          duplicated: delivery.duplicated,
          outOfOrder: delivery.outOfOrder,
          latencyMs: latency(delivery.latencyMs),
          histogram: delivery.histogram,
        }
      : null,
    messaging: messagingEntry(scenario.accounting.messaging),
    tags: scenario.tags.map((tag) => ({
      tags: { ...tag.tags },
      requests: { ...tag.requests },
      commands: tag.commands,
      latencyMs: latency(tag.latencyMs),
      histogram: tag.histogram,
    })),
    series: scenario.series.map((point) => ({ ...point })),
  };
}

export function loadDocument(run: LoadRun) {
  return {
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: run.durationMs,
    target: run.target,
    embedded: run.embedded,
    exitCode: run.exitCode,
    aborted: run.aborted ?? null,
    problems: [...run.problems],
    skipped: (run.skipped ?? []).map((item) => ({ ...item })),
    scenarios: run.scenarios.map(scenarioEntry),
  };
}
