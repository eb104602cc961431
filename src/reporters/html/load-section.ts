/** The load part of index.html: per scenario its tables and its charts (a messaging scenario's accounting too). */
import type { LoadRun, ScenarioAccounting, ScenarioResult } from '../../results/load-run.ts';
import {
  batchChart,
  type ChartSpec,
  deliveryChart,
  latencyChart,
  shownTags,
  slug,
  tagLabel,
  timelineChart,
} from './chart-data.ts';
import type { FaultBand } from './fault-bands.ts';
import { type Cell, figure, formatMs, formatNumber, type Section, type Text, table, verdictCell } from './markup.ts';
import { arrivalTimelineChart, streamLatencyChart } from './messaging-charts.ts';
import { messagingTable } from './messaging-tables.ts';

const html = (text: string): Cell => ({ html: text });

function settingsLine(t: Text, scenario: ScenarioResult): string {
  const { settings } = scenario;
  const load =
    scenario.model === 'open'
      ? `open model, ${settings.ramp ? `ramp ${t(settings.ramp)}` : `${formatNumber(settings.rate ?? 0)} req/s`}`
      : `closed model, ${settings.connections} connections`;
  const split =
    scenario.engine === 'k6'
      ? `k6 v${t(settings.k6Version ?? '?')} · ${settings.segments ?? 1} segment${(settings.segments ?? 1) === 1 ? '' : 's'}`
      : `${settings.workers} workers`;
  return `${t(scenario.engine)} engine · ${load} · ${settings.durationS} s · ${split} · seed ${settings.seed}`;
}

function requestsTable(scenario: ScenarioResult): string {
  const { requests, throughput } = scenario;
  return table(
    'requests',
    ['sent', 'completed', 'failed', 'dropped', 'commands', 'req/s', 'commands/s'],
    [
      [
        requests.sent,
        requests.completed,
        requests.failed,
        requests.dropped,
        scenario.commands,
        throughput.requestsPerSecond,
        throughput.commandsPerSecond,
      ],
    ],
  );
}

function latencyTable(t: Text, scenario: ScenarioResult): string {
  const rows = [{ label: 'all requests', latency: scenario.latencyMs }];
  for (const tag of shownTags(scenario)) rows.push({ label: tagLabel(tag.tags), latency: tag.latencyMs });
  return table(
    'latency (ms)',
    ['requests', 'count', 'mean', 'p50', 'p90', 'p99', 'p99.9', 'max'],
    rows.map(({ label, latency }) => [
      html(t(label)),
      latency.count,
      ...[latency.mean, latency.p50, latency.p90, latency.p99, latency.p999, latency.max].map((value) =>
        html(formatMs(value)),
      ),
    ]),
  );
}

function thresholdsTable(t: Text, scenario: ScenarioResult): string {
  if (scenario.thresholds.length === 0) return '';
  return table(
    'thresholds',
    ['expression', 'source', 'value', 'result'],
    scenario.thresholds.map((threshold) => [
      html(`<code>${t(threshold.expression)}</code>`),
      html(t(threshold.source)),
      threshold.value,
      verdictCell(threshold.ok),
    ]),
  );
}

function checksTable(t: Text, scenario: ScenarioResult): string {
  if (scenario.checks.length === 0) return '';
  return table(
    'checks',
    ['check', 'passes', 'fails', 'result'],
    scenario.checks.map((check) => [html(t(check.name)), check.passes, check.fails, verdictCell(check.fails === 0)]),
  );
}

function errorsTable(t: Text, scenario: ScenarioResult): string {
  if (scenario.errors.length === 0) return '<p class="quiet">No errors.</p>';
  return table(
    'errors by class',
    ['class', 'count', 'example'],
    scenario.errors.map((error) => [html(t(error.kind)), error.count, html(`<code>${t(error.example)}</code>`)]),
  );
}

const accountingNames: readonly (keyof Omit<ScenarioAccounting, 'delivery' | 'messaging'>)[] = [
  'lostUpdates',
  'doubledUpdates',
  'unknownOutcomes',
];

function accountingTable(scenario: ScenarioResult): string {
  const present = accountingNames.filter((name) => scenario.accounting[name] !== undefined);
  if (present.length === 0) return '';
  return table('accounting', present, [present.map((name) => scenario.accounting[name] ?? null)]);
}

function deliveryTable(scenario: ScenarioResult): string {
  const delivery = scenario.accounting.delivery;
  if (!delivery) return '';
  const exact = delivery.lost === 0 && delivery.duplicated === 0 && delivery.outOfOrder === 0;
  return table(
    'fan-out delivery',
    ['subscribers', 'expected', 'received', 'lost', 'duplicated', 'out of order', 'exact'],
    [
      [
        delivery.subscribers,
        delivery.expected,
        delivery.received,
        delivery.lost,
        delivery.duplicated,
        delivery.outOfOrder,
        verdictCell(exact),
      ],
    ],
  );
}

/** A soak's faults over a scenario's seconds, 0 to `lastS` (none outside a soak). */
export type BandsOf = (scenario: string, lastS: number) => readonly FaultBand[];

function scenarioSection(
  t: Text,
  redact: (text: string) => string,
  scenario: ScenarioResult,
  index: number,
  bandsOf: BandsOf,
): Section {
  const key = slug(redact(scenario.name), index);
  const latency = latencyChart(scenario, key);
  // Over the seconds either chart of time draws: the load's, and the arrivals of the sink's wait after it.
  const lastS =
    Math.max(scenario.series.at(-1)?.second ?? 0, scenario.accounting.messaging?.series.at(-1)?.second ?? 0) + 1;
  const bands = bandsOf(scenario.name, lastS);
  const timeline = timelineChart(scenario, key, bands);
  const batch = batchChart(scenario, key);
  const delivery = deliveryChart(scenario, key);
  const messaging = scenario.accounting.messaging;
  const arrivals = arrivalTimelineChart(scenario, key, bands);
  const streams = streamLatencyChart(scenario, key);
  const failed = scenario.thresholds.some((threshold) => !threshold.ok) || scenario.problem !== undefined;
  const parts = [
    `<section class="scenario${failed ? ' failed' : ''}" id="scenario-${key}">`,
    `<h3>${t(scenario.title)} <code>${t(scenario.name)}</code> <small>on ${t(scenario.engine)}</small></h3>`,
    `<p class="quiet">${settingsLine(t, scenario)} · started ${t(scenario.startedAt)}</p>`,
    scenario.problem === undefined ? '' : `<p class="problem">${t(scenario.problem)}</p>`,
    '<div class="tables">',
    requestsTable(scenario),
    latencyTable(t, scenario),
    thresholdsTable(t, scenario),
    checksTable(t, scenario),
    errorsTable(t, scenario),
    accountingTable(scenario),
    '</div>',
    '<div class="charts">',
    figure(t, latency, `${scenario.name}: latency by percentile`),
    figure(t, timeline, `${scenario.name}: throughput and p99 over time`),
    // Only scenarios whose requests carry a batch tag, or a fan-out, have these.
    batch ? figure(t, batch, batch.title) : '',
    scenario.accounting.delivery ? figure(t, delivery, `${scenario.name}: delivery latency by percentile`) : '',
    messaging ? figure(t, arrivals, `${scenario.name}: delivery and callback latency over time`) : '',
    messaging ? figure(t, streams, `${scenario.name}: messaging latency by percentile`) : '',
    '</div>',
    deliveryTable(scenario),
    messaging ? messagingTable(t, messaging) : '',
    '</section>',
  ];
  return {
    html: parts.filter((part) => part !== '').join('\n'),
    charts: [latency, timeline, batch, delivery, arrivals, streams].filter(
      (chart): chart is ChartSpec => chart !== undefined,
    ),
  };
}

export function loadSection(
  t: Text,
  redact: (text: string) => string,
  load: LoadRun,
  bandsOf: BandsOf = () => [],
): Section {
  const sections = load.scenarios.map((scenario, index) => scenarioSection(t, redact, scenario, index, bandsOf));
  const head = [
    '<section class="part" id="load">',
    `<h2>Load <small>target ${t(load.target)}${load.embedded ? ' (embedded reference)' : ''}</small></h2>`,
    load.aborted === undefined ? '' : `<p class="problem">The load run stopped early: ${t(load.aborted)}</p>`,
    load.scenarios.length === 0 ? '<p class="no-data">No scenario ran: no data.</p>' : '',
  ];
  return {
    html: [...head, ...sections.map((section) => section.html), '</section>'].filter((part) => part !== '').join('\n'),
    charts: sections.flatMap((section) => section.charts),
  };
}
