/** What the console says about load: a line per scenario as it starts, live progress, the end summary. */
import type { LoadRun, MessagingAccounting, ScenarioResult } from '../results/load-run.ts';
import type { LoadProgress } from '../results/reporter.ts';
import { messagingStreams, sortedByTags, streamFacts, tagText } from './messaging-streams.ts';

/** `command: 12/30 s · 998 req/s · p99 (last second) 4.1 ms · errors 0 · dropped 0` */
export function progressText(progress: LoadProgress): string {
  return [
    `${progress.scenario}: ${Math.floor(progress.elapsedS)}/${progress.durationS} s`,
    `${Math.round(progress.rate)} req/s`,
    // The live figure is of the last second's answers; the end summary has the whole run's.
    `p99 (last second) ${progress.p99Ms} ms`,
    `errors ${progress.errors}`,
    `dropped ${progress.dropped}`,
  ].join(' · ');
}

export function scenarioStartLine(name: string, line: string): string {
  return `load: ${name}: ${line}`;
}

/** One line per scenario, a line per failed threshold and per accounting problem, a line per messaging stream. */
export function scenarioLines(scenario: ScenarioResult): string[] {
  const { requests, latencyMs } = scenario;
  // Latency is of completed answers only: with none, there is none to show (not "p99 0 ms").
  const latency =
    latencyMs.count === 0
      ? 'no completed answer, so no latency'
      : `p50 ${latencyMs.p50} ms · p99 ${latencyMs.p99} ms · max ${latencyMs.max} ms`;
  const lines = [
    `${scenario.name} (${scenario.engine}, ${scenario.model}): ${requests.completed}/${requests.sent} completed, ${requests.failed} failed, ${requests.dropped} dropped · ${scenario.throughput.requestsPerSecond.toFixed(1)} req/s · ${latency}`,
  ];
  if (scenario.problem) lines.push(`  problem: ${scenario.problem}`);
  for (const error of scenario.errors) lines.push(`  ${error.count} × ${error.kind}: ${error.example}`);
  for (const threshold of scenario.thresholds) {
    if (!threshold.ok) lines.push(`  THRESHOLD FAILED ${threshold.expression} (value ${threshold.value ?? 'no data'})`);
  }
  const { lostUpdates, doubledUpdates, delivery, messaging } = scenario.accounting;
  if ((lostUpdates ?? 0) > 0 || (doubledUpdates ?? 0) > 0) {
    lines.push(`  lost updates ${lostUpdates ?? 0}, doubled updates ${doubledUpdates ?? 0}`);
  }
  if (delivery) {
    lines.push(
      `  delivery: ${delivery.received}/${delivery.expected} received, ${delivery.lost} lost, ${delivery.duplicated} duplicated, ${delivery.outOfOrder} out of order`,
    );
  }
  if (messaging) lines.push(...messagingLines(messaging));
  return lines;
}

/** A messaging scenario at the sink: each stream's exact counts and latency, then what waited and strayed. */
function messagingLines(messaging: MessagingAccounting): string[] {
  const lines: string[] = [];
  for (const { label, latency, accounting } of messagingStreams(messaging)) {
    const timing =
      accounting.latencyMs.count === 0
        ? ''
        : ` · ${latency} p50 ${accounting.latencyMs.p50} ms, p99 ${accounting.latencyMs.p99} ms`;
    lines.push(`  ${label}: ${streamFacts(accounting)}${timing}`);
    // Where it went wrong, when the stream is kept per tag set (publish-fanout's endpoints).
    for (const item of sortedByTags(accounting.byTags)) {
      if (item.lost > 0 || item.duplicated > 0) {
        lines.push(`    ${tagText(item.tags)}: ${item.lost} lost, ${item.duplicated} duplicated of ${item.expected}`);
      }
    }
  }
  const strays = [
    ...(messaging.strays > 0 ? [`strays (requests to no open inbox) ${messaging.strays}`] : []),
    ...(messaging.unclassified > 0 ? [`unclassified ${messaging.unclassified}`] : []),
  ]
    .map((text) => `, ${text}`)
    .join('');
  const complete = messaging.complete?.latencyMs;
  const whole =
    complete && complete.count > 0 ? `; send → last arrival p50 ${complete.p50} ms, p99 ${complete.p99} ms` : '';
  lines.push(
    `  ${messaging.accepted} accepted; waited ${messaging.waitedS.toFixed(1)} s after the load${strays}${whole}`,
  );
  return lines;
}

export function loadSummaryLines(run: LoadRun): string[] {
  const passed = run.scenarios.flatMap((scenario) => scenario.thresholds).filter((threshold) => threshold.ok).length;
  const total = run.scenarios.flatMap((scenario) => scenario.thresholds).length;
  return [
    `load against ${run.target}${run.embedded ? ' (embedded reference)' : ''}: ${run.scenarios.length} scenarios, thresholds ${passed}/${total} ok`,
    ...run.scenarios.flatMap(scenarioLines),
    ...(run.skipped ?? []).map((item) => `  skipped ${item.name}: ${item.reason}`),
    ...run.problems.map((problem) => `  problem: ${problem}`),
  ];
}

const percentileColumns = ['count', 'min', 'p50', 'p90', 'p99', 'p99.9', 'max'] as const;

/**
 * The end of a load run's summary, as autocannon ends its own: a latency table in milliseconds of
 * completed answers, a row per scenario and one per tag set it keeps (pipeline's batch sizes).
 */
export function latencyTableLines(run: LoadRun): string[] {
  const rows: string[][] = run.scenarios.flatMap((scenario) => [
    latencyRow(scenario.name, scenario.latencyMs),
    ...(scenario.tags.length > 1
      ? sortedByTags(scenario.tags).map((tag) => latencyRow(`  ${tagText(tag.tags)}`, tag.latencyMs))
      : []),
  ]);
  if (rows.length === 0) return [];
  const header = ['latency (ms)', ...percentileColumns];
  const widths = header.map((title, at) => Math.max(title.length, ...rows.map((row) => (row[at] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, at) => (at === 0 ? cell.padEnd(widths[at] ?? 0) : cell.padStart(widths[at] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)].map((text) => `  ${text.trimEnd()}`);
}

function latencyRow(name: string, latency: ScenarioResult['latencyMs']): string[] {
  if (latency.count === 0) return [name, '0', ...percentileColumns.slice(1).map(() => '–')];
  return [
    name,
    String(latency.count),
    ...[latency.min, latency.p50, latency.p90, latency.p99, latency.p999, latency.max].map(String),
  ];
}
