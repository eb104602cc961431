/**
 * The load tables of summary.md: one row per scenario, the thresholds, the accounting (a messaging
 * scenario's per stream and per endpoint), the batch curve.
 */
import { batchCurve, type LoadRun, type ScenarioResult } from '../results/load-run.ts';
import { cell, table } from './markdown-table.ts';
import { messagingFacts, messagingStreams, sortedByTags, streamExact, tagText } from './messaging-streams.ts';

const fixed = (value: number, digits = 1) => value.toFixed(digits);

function accountingLines(scenario: ScenarioResult): string[] {
  const { lostUpdates, doubledUpdates, unknownOutcomes, delivery } = scenario.accounting;
  const lines: string[] = [];
  if (lostUpdates !== undefined) {
    lines.push(
      `- \`${scenario.name}\`: lost updates ${lostUpdates}, doubled updates ${doubledUpdates ?? 0}, transactions of unknown outcome ${unknownOutcomes ?? 0}`,
    );
  }
  if (delivery) {
    lines.push(
      `- \`${scenario.name}\`: ${delivery.subscribers} subscribers, expected ${delivery.expected}, received ${delivery.received}, lost ${delivery.lost}, duplicated ${delivery.duplicated}, out of order ${delivery.outOfOrder}; delivery p50 ${delivery.latencyMs.p50} ms, p99 ${delivery.latencyMs.p99} ms`,
    );
  }
  return lines;
}

/**
 * Every messaging scenario's accounting in one table: a row per stream (exact or not), then a row
 * per tag set the stream is kept by (publish-fanout's endpoints), each with its latency.
 */
function messagingRows(scenario: ScenarioResult): (string | number)[][] {
  const messaging = scenario.accounting.messaging;
  if (!messaging) return [];
  return messagingStreams(messaging).flatMap(({ label, accounting }) => [
    [
      `\`${scenario.name}\``,
      label,
      accounting.expected,
      accounting.received,
      accounting.lost,
      accounting.duplicated,
      accounting.unexpected,
      accounting.badSignatures,
      accounting.latencyMs.p50,
      accounting.latencyMs.p99,
      streamExact(accounting) ? 'exact' : '**not exact**',
    ],
    ...sortedByTags(accounting.byTags).map((item) => [
      `\`${scenario.name}\``,
      `${label} ${tagText(item.tags)}`,
      item.expected,
      item.received,
      item.lost,
      item.duplicated,
      // The model keeps these per stream only (an arrival nobody expects has no tag set).
      '–',
      '–',
      item.latencyMs.p50,
      item.latencyMs.p99,
      item.lost === 0 && item.duplicated === 0 ? 'exact' : '**not exact**',
    ]),
  ]);
}

function messagingLines(scenarios: readonly ScenarioResult[]): string[] {
  const rows = scenarios.flatMap(messagingRows);
  if (rows.length === 0) return [];
  const notes = scenarios.flatMap((scenario) => {
    const messaging = scenario.accounting.messaging;
    if (!messaging) return [];
    return [`- \`${scenario.name}\`: ${messagingFacts(messaging).join('; ')}`];
  });
  return [
    'Messaging accounting (lost = expected − received; duplicates are allowed unless a threshold says otherwise):',
    '',
    ...table(
      [
        'scenario',
        'stream',
        'expected',
        'received',
        'lost',
        'duplicated',
        'unexpected',
        'bad signatures',
        'p50 ms',
        'p99 ms',
        'accounting',
      ],
      rows,
    ),
    '',
    ...notes,
    '',
  ];
}

/** `heading` is the prefix of the section's own heading (`##`), empty when load is the whole summary. */
export function loadMarkdown(run: LoadRun, heading: string): string[] {
  const lines: string[] = [];
  if (heading) lines.push(`${heading} Load`, '');
  lines.push(`Target: ${cell(run.target)}${run.embedded ? ' (embedded reference)' : ''}`, '');
  if (run.aborted) lines.push(`Load stopped early: ${cell(run.aborted)}`, '');
  lines.push(
    ...table(
      [
        'scenario',
        'engine',
        'model',
        'sent',
        'completed',
        'failed',
        'dropped',
        'req/s',
        'cmd/s',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'p99.9 ms',
        'max ms',
      ],
      run.scenarios.map((scenario) => [
        `\`${scenario.name}\``,
        scenario.engine,
        scenario.model,
        scenario.requests.sent,
        scenario.requests.completed,
        scenario.requests.failed,
        scenario.requests.dropped,
        fixed(scenario.throughput.requestsPerSecond),
        fixed(scenario.throughput.commandsPerSecond),
        scenario.latencyMs.p50,
        scenario.latencyMs.p90,
        scenario.latencyMs.p99,
        scenario.latencyMs.p999,
        scenario.latencyMs.max,
      ]),
    ),
    '',
  );
  for (const item of run.skipped ?? []) lines.push(`- \`${item.name}\` skipped: ${cell(item.reason)}`);
  if ((run.skipped ?? []).length > 0) lines.push('');
  const problems = run.scenarios.filter((scenario) => scenario.problem);
  for (const scenario of problems) lines.push(`- \`${scenario.name}\`: ${cell(scenario.problem ?? '')}`);
  if (problems.length > 0) lines.push('');
  const thresholds = run.scenarios.flatMap((scenario) =>
    scenario.thresholds.map((threshold) => [
      `\`${scenario.name}\``,
      `\`${threshold.expression}\``,
      threshold.source,
      threshold.value === null ? 'no data' : String(threshold.value),
      threshold.ok ? 'ok' : '**failed**',
    ]),
  );
  if (thresholds.length > 0) lines.push(...table(['scenario', 'threshold', 'from', 'value', 'result'], thresholds), '');
  const checks = run.scenarios.flatMap((scenario) =>
    scenario.checks.map((check) => [`\`${scenario.name}\``, check.name, check.passes, check.fails]),
  );
  if (checks.length > 0) lines.push(...table(['scenario', 'check', 'passes', 'fails'], checks), '');
  const errors = run.scenarios.flatMap((scenario) =>
    scenario.errors.map((error) => [`\`${scenario.name}\``, error.kind, error.count, error.example]),
  );
  if (errors.length > 0) lines.push(...table(['scenario', 'error', 'count', 'example'], errors), '');
  const accounting = run.scenarios.flatMap(accountingLines);
  if (accounting.length > 0) lines.push(...accounting, '');
  lines.push(...messagingLines(run.scenarios));
  for (const scenario of run.scenarios) {
    const curve = batchCurve(scenario);
    if (curve.length === 0) continue;
    lines.push(
      `Batch-size curve of \`${scenario.name}\`:`,
      '',
      ...table(
        ['batch', 'req/s', 'cmd/s', 'p50 ms', 'p99 ms'],
        curve.map((point) => [
          point.batch,
          fixed(point.requestsPerSecond),
          fixed(point.commandsPerSecond),
          point.p50,
          point.p99,
        ]),
      ),
      '',
    );
  }
  return lines;
}
