/**
 * The CLI as one typed table: it drives parsing (each flag read once, by its kind: read-option.ts),
 * `--help`, the command reference of docs/cli.md, the config file's keys and schema (config-keys.ts,
 * config-schema.ts) and the types of the values each handler receives (`CommandValues`). The handlers
 * are loaded by command-handlers.ts, only when their command runs.
 */
import { loadFlagKinds } from '../engines/load/load-settings.ts';
import { fileOutputKinds, outputKinds, urlOutputKinds } from '../reporters/outputs/output-kinds.ts';
import { reporterNames } from '../reporters/registry.ts';
import { targetAreas } from '../target/areas.ts';
import { dialectNames } from '../target/dialects.ts';
import { messagingRegions } from '../target/messaging-regions.ts';
import type { OptionSpec, SpecValues } from './option-spec.ts';

export type { OptionSpec } from './option-spec.ts';

export interface CommandSpec {
  readonly summary: string;
  /** Words after the command that are not flags (`load command pipeline`), handed over as `_`. */
  readonly positionals?: { readonly name: string; readonly description: string };
  readonly options: Readonly<Record<string, OptionSpec>>;
}

/** The config file's flag, on every command that reads one (config-file.ts). */
const configOption = {
  kind: 'path',
  description: 'Config file with defaults for these flags (flags win)',
  default: 'svc-harness.config.{ts,mts,cts,mjs,js,cjs,json} in the working folder, if there is one',
} as const satisfies OptionSpec;

const loadOptions = {
  engine: {
    ...loadFlagKinds.engine,
    description:
      'Who makes the load: node (raw sockets with http-parser-js, worker threads), node-undici (the same engine on undici; its closed model is autocannon), k6 (K6_BINARY, PATH, or built once from the Go module proxy), or a list such as node,k6 (each scenario on each, side by side in one report)',
    default: 'node',
  },
  segments: {
    ...loadFlagKinds.segments,
    description:
      'k6: run this many k6 processes, one execution segment each (as k6-operator’s parallelism), merged into one result',
    default: '1',
  },
  model: {
    ...loadFlagKinds.model,
    description:
      'open: requests arrive at --rate whatever the target does (latency from each intended start); closed: --connections at full speed through autocannon',
    default: 'open',
  },
  rate: { ...loadFlagKinds.rate, description: 'Requests per second (open model)', default: 'the scenario’s' },
  duration: {
    ...loadFlagKinds.duration,
    description: 'How long each scenario runs: 500ms, 10s, 2m, 1m30s',
    default: 'the scenario’s',
  },
  warmup: {
    ...loadFlagKinds.warmup,
    description:
      'Unmeasured load before each scenario’s measured run, at its rate: left out of histograms, thresholds and comparisons (node engine, open model, scenarios without a sink or fan-out); 0 turns it off',
    default: '1s',
  },
  ramp: {
    kind: 'string',
    description:
      'Ramp stages DURATION:RATE, comma-separated, from 0 (10s:100,30s:500); instead of --rate and --duration',
  },
  connections: {
    ...loadFlagKinds.connections,
    description:
      'Open model: most requests in flight (further arrivals are dropped, and counted); closed model: connections',
    default: '1000 open, 10 closed',
  },
  workers: {
    ...loadFlagKinds.workers,
    description: 'Threads sending the open model’s load',
    default: 'one per 3,000 req/s, at most one per core',
  },
  batch: {
    ...loadFlagKinds.batch,
    description: 'Commands per request, comma-separated (pipeline: batch sizes; transaction: INCRs per transaction)',
    default: 'the scenario’s',
  },
  'value-size': {
    ...loadFlagKinds['value-size'],
    description: 'Value sizes in bytes, comma-separated',
    default: 'the scenario’s',
  },
  seed: {
    ...loadFlagKinds.seed,
    description: 'Seed of the scenarios’ random choices (the same seed sends the same requests)',
    default: '1',
  },
  timeout: { ...loadFlagKinds.timeout, description: 'Timeout of every request and stream wait', default: '10s' },
  param: {
    kind: 'string',
    multiple: true,
    pairs: 'number',
    description:
      'A scenario parameter NAME=NUMBER (endpoints=4, fail-share=0.1, waiters=20; `load --list` shows each scenario’s, with bounds and default), for every scenario of the run that declares it. Not k6’s -e KEY=VALUE: a scenario declares its parameters as bounded numbers, so a typo or a value out of bounds is refused before anything starts, and the value reaches k6 VUs and the sink’s threads in the scenario’s state',
  },
  threshold: {
    kind: 'string',
    multiple: true,
    description:
      'k6-syntax threshold METRIC[{tag:value}]:EXPR, e.g. "http_req_duration{batch:100}:p(99)<50", on top of each scenario’s own',
  },
} as const satisfies Record<string, OptionSpec>;

/** Known failures of the conformance suites (expectations.ts), on `conformance` and `run`. */
const expectationsOption = {
  kind: 'path',
  description: 'Expectations file: known failures with reason and optional expiry',
} as const satisfies OptionSpec;

/** How many concurrent cases run at once, on `conformance` and `run` (`cases`: what they are called there). */
function concurrencyOption(cases: string) {
  return {
    kind: 'count',
    min: 1,
    description: `${cases} marked concurrent that run at once (1: every case alone, in turn)`,
    default: '6',
  } as const satisfies OptionSpec;
}

/** An implementation's container as the target (its target file holds the template). */
const imageOption = {
  kind: 'string',
  description:
    'Start this image (NAME[:TAG]) as the target: the --target file’s "image" template gives its ports, environment and wait, its URLs say {host} and {port:N}; the container is stopped and removed after the run',
} as const satisfies OptionSpec;

/**
 * What a `--tolerance` names: a metric's relative change (results/compare.ts's `compareMetrics`, which
 * test/cli/compare-flags.test.ts holds this to), or the latency floor. Not imported: the statistics
 * module and its histograms would load on every command's start.
 */
const toleranceNames = ['p50', 'p90', 'p99', 'throughput', 'error-rate', 'latency'] as const;

/** A baseline report to compare the run with, and how large a change must be to count. */
const baselineOptions = {
  baseline: {
    kind: 'path',
    description:
      'A report folder or report.json to compare this run with: p50, p90, p99, throughput and error rate per scenario and tag with 95% intervals, and rules newly failing, passing or blocked; a regression exits 98',
  },
  tolerance: {
    kind: 'string',
    multiple: true,
    pairs: 'string',
    pairNames: toleranceNames,
    description:
      'With --baseline: METRIC=VALUE, the change that counts beyond the noise (p50, p90, p99, throughput: relative, 10%; error-rate: points, 1%; latency: the smallest latency change that counts, 5ms)',
    default: 'p50=10%, p90=10%, p99=15%, throughput=10%, error-rate=1%, latency=5ms',
  },
} as const satisfies Record<string, OptionSpec>;

/** Where the sink for area A's deliveries and callbacks listens (the target file's `sink` says the same). */
const sinkOptions = {
  'sink-host': {
    kind: 'string',
    description: 'Address the sink for deliveries and callbacks listens on',
    default: '127.0.0.1',
  },
  'sink-port': { kind: 'count', max: 65535, description: 'Port of the sink', default: 'a free port' },
  'sink-url': {
    kind: 'string',
    description:
      'Base URL the target must call to reach the sink (a tunnel’s, a CI runner’s), with a path prefix or not; every URL handed to the target sits under it',
    default: 'http://<sink-host>:<sink-port>',
  },
  'sink-threads': {
    kind: 'count',
    description: 'Worker threads the sink serves load’s deliveries and callbacks on (0: the harness’s own thread)',
    default: '0 for conformance, 1 for load',
  },
  'sink-wait': {
    kind: 'duration',
    maxMs: 3_600_000,
    takes: 'a duration up to 1 hour (15s, 2m, 1m30s, 1h)',
    description:
      'How long a case waits for a request the target sends later (a delivery, a callback): 15s, 2m, 1m30s, up to 1h',
    default: '15s',
  },
} as const satisfies Record<string, OptionSpec>;

const reporterOption = {
  kind: 'name-or-path',
  multiple: true,
  choices: reporterNames,
  noun: 'reporter',
  example: './my-reporter.ts',
  description: `Reporter by name (${reporterNames.join(', ')}) or the path of a module of your own whose default export is a Reporter (./my-reporter.ts; docs/api.md)`,
  default: 'all of them',
} as const satisfies OptionSpec;

/** How much the console says, on conformance, load and run (console-output.ts's levels). */
const consoleOptions = {
  quiet: {
    kind: 'boolean',
    description: 'The console prints only the failures and the gate line (the report files are the same)',
  },
  verbose: {
    kind: 'boolean',
    description: 'The console also prints every case’s verdict as it ends and a progress line each second of load',
  },
} as const satisfies Record<string, OptionSpec>;

/** Live outputs of load and run (src/reporters/outputs/). */
const outOption = {
  kind: 'destination',
  of: outputKinds,
  noun: 'output',
  files: fileOutputKinds,
  urls: urlOutputKinds,
  multiple: true,
  description:
    'A live output KIND=DESTINATION: json=FILE writes NDJSON as the run goes, a line per metric point each second of load and per event; prometheus-rw=URL sends the metric points to a Prometheus remote-write receiver; otlp=URL sends them as OpenTelemetry metrics over OTLP/HTTP; both send once a second unless SVC_PROMETHEUS_RW_PUSH_INTERVAL or OTEL_METRIC_EXPORT_INTERVAL say otherwise (docs/outputs.md)',
} as const satisfies OptionSpec;

export const commandTable = {
  serve: {
    summary: 'Start the reference service (messaging, key-value REST, management) and print its URLs and credentials',
    options: {
      host: { kind: 'string', description: 'Address to listen on', default: '127.0.0.1' },
      'kv-port': {
        kind: 'count',
        description: 'Port of the key-value REST interface',
        default: 'a free port',
      },
      'messaging-port': {
        kind: 'count',
        description: 'Port of the messaging and workflow interface (its default region)',
        default: 'a free port',
      },
      'management-port': {
        kind: 'count',
        description: 'Port of the management interface',
        default: 'a free port',
      },
      'admin-port': {
        kind: 'count',
        description: 'Port of the admin endpoint',
        default: 'a free port',
      },
      regions: {
        kind: 'list',
        of: messagingRegions,
        noun: 'region',
        description: 'Messaging regions to serve, comma-separated, each on its own base URL (eu-central-1, us-east-1)',
        default: 'eu-central-1',
      },
      'region-latency': {
        kind: 'string',
        description: 'Delay every answer of a region: REGION=DURATION, comma-separated (us-east-1=80ms)',
        default: 'none',
      },
      'kv-latency': {
        kind: 'duration',
        minMs: 0,
        above: false,
        takes: 'a duration (4ms)',
        description:
          'Delay every answer of the key-value interface by this DURATION (4ms): a known slowdown, to see compare and thresholds catch it',
        default: 'none',
      },
      'retry-backoff': {
        kind: 'string',
        description:
          'Wait before a failed delivery is retried: real (about e^(2.5·n) s, at most a day) or a base DURATION doubled per retry (20ms)',
        default: 'real',
      },
      'redis-url': {
        kind: 'string',
        description: 'Redis to back the service (else REDIS_URL, else redis-server on PATH, else a container)',
      },
      fault: { kind: 'string', multiple: true, description: 'Turn on a fault switch by name; see --list-faults' },
      'fault-record': {
        kind: 'path',
        description:
          'Where a fault switch that keeps a record appends it (publish-write-behind: each id acknowledged, writing, then persisted once Redis answered; exec-write-behind: the same per increment)',
      },
      'list-faults': { kind: 'boolean', description: 'Print every fault switch with the rule it breaks, and exit' },
      silence: {
        kind: 'string',
        multiple: true,
        description:
          'Turn on a silence switch by name: another legal choice where the spec is silent, which no case may fail; see --list-silences',
      },
      'list-silences': {
        kind: 'boolean',
        description: 'Print every silence switch with the silence it takes another reading of, and exit',
      },
      'write-target': { kind: 'path', description: 'Write a target file for the running service' },
      'max-request-bytes': {
        kind: 'count',
        min: 1,
        description: 'Maximum request size, bytes',
        default: '10485760',
      },
      'daily-request-limit': {
        kind: 'count',
        description: 'Daily request limit (commands per day)',
        default: 'off',
      },
      dialect: {
        description: 'Vendor names to answer to: svc (Svc-Encoding, …) or upstash (Upstash-Encoding, …)',
        default: 'svc',
        kind: 'enum',
        choices: dialectNames,
      },
    },
  },
  conformance: {
    summary: 'Run the conformance suites against targets (default: the embedded reference service)',
    options: {
      config: configOption,
      target: {
        kind: 'path',
        multiple: true,
        description: 'Target file; several give one report with a section each',
        default: 'the SVC_* variables’ target, else start the embedded reference',
      },
      image: imageOption,
      area: {
        kind: 'list',
        of: targetAreas,
        noun: 'area',
        namesFlag: false,
        description: 'Comma-separated areas to run: kv, messaging, management',
        default: 'every area the target has',
      },
      rules: { kind: 'string', description: 'Only cases naming a rule that matches this glob, e.g. "B.multi-exec.*"' },
      concurrency: concurrencyOption('Cases'),
      timeout: {
        kind: 'duration',
        takes: 'a duration (2s)',
        description: 'Budget of every request and stream wait of the cases, as a DURATION (2s)',
        default: '10s',
      },
      'report-dir': {
        kind: 'path',
        description: 'Where report.json, junit.xml, summary.md and index.html go',
        default: 'reports/<timestamp>/',
      },
      expectations: expectationsOption,
      fault: {
        kind: 'string',
        multiple: true,
        description: 'Turn on a fault switch of the embedded reference (not with --target), to see the suite catch it',
      },
      silence: {
        kind: 'string',
        multiple: true,
        description:
          'Turn on a silence switch of the embedded reference (not with --target): another legal choice where the spec is silent, to see the suite pass it',
      },
      'order-seed': {
        kind: 'count',
        description:
          'Run the cases in an order shuffled by this seed (groups, files and cases); a verdict must not depend on it',
        default: 'the files’ own order',
      },
      ...sinkOptions,
      reporter: reporterOption,
      ...consoleOptions,
    },
  },
  load: {
    summary: 'Run load scenarios against a target (default: the embedded reference service)',
    positionals: {
      name: 'scenario',
      description:
        'Scenarios to run (default: all): command, pipeline, transaction, kv-fanout, publish-fanout, callback-throughput, notify-fanout (--list shows each with its parameters)',
    },
    options: {
      config: configOption,
      list: {
        kind: 'boolean',
        description:
          'Print the scenarios (those named, else all) with their area, defaults and parameters (--param NAME=NUMBER), and exit',
      },
      target: {
        kind: 'path',
        description: 'Target file',
        default: 'the SVC_* variables’ target, else start the embedded reference',
      },
      image: imageOption,
      ...loadOptions,
      'report-dir': {
        kind: 'path',
        description: 'Where report.json, junit.xml, summary.md and index.html go',
        default: 'reports/<timestamp>/',
      },
      // The messaging scenarios' sink (a case's wait is conformance's alone).
      'sink-host': sinkOptions['sink-host'],
      'sink-port': sinkOptions['sink-port'],
      'sink-url': sinkOptions['sink-url'],
      'sink-threads': sinkOptions['sink-threads'],
      ...baselineOptions,
      reporter: reporterOption,
      out: outOption,
      ...consoleOptions,
    },
  },
  soak: {
    summary:
      'Load for a long time while faults strike the implementation (kill, restart, pause; partition, latency, bandwidth, reset on a path), then every fault as it happened and the messages the load accounts for',
    positionals: {
      name: 'scenario',
      description: 'Scenarios to run, one after another, each for --duration (default: all)',
    },
    options: {
      config: configOption,
      target: {
        kind: 'path',
        description:
          'Target file; with "process", the soak starts the implementation itself and can kill, restart and pause it',
        default: 'the reference, started by the soak in a process of its own on a Redis of its own',
      },
      image: {
        kind: 'string',
        description:
          'Start this image (NAME[:TAG]) as the implementation, from the --target file’s "image" template, on fixed host ports: kill is the engine’s SIGKILL and a start, restart its stop and start, pause its pause; removed after the run',
      },
      fault: {
        kind: 'string',
        multiple: true,
        description:
          'A fault: kill every 10m, restart every 30m, pause 5s every 7m, partition sink 30s every 15m, latency 200ms±50ms for 60s every 20m, bandwidth 100KB/s for 60s every 20m, reset for 10s every 5m; a path is target (default) or sink; "after D" sets the first',
        default: 'none',
      },
      ...loadOptions,
      duration: {
        ...loadOptions.duration,
        description: 'How long each scenario runs under the faults',
        default: '10m',
      },
      seed: {
        ...loadOptions.seed,
        description: 'Seed of the scenarios’ random choices and of the faults’ times (written into soak.json)',
      },
      'report-dir': {
        kind: 'path',
        description: 'Where soak.json goes, beside the load’s report.json, junit.xml, summary.md and index.html',
        default: 'reports/<timestamp>/',
      },
      'sink-host': sinkOptions['sink-host'],
      'sink-port': sinkOptions['sink-port'],
      'sink-url': sinkOptions['sink-url'],
      'sink-threads': sinkOptions['sink-threads'],
      ...baselineOptions,
      reporter: reporterOption,
      out: outOption,
      ...consoleOptions,
    },
  },
  run: {
    summary: 'The main job: conformance, then a short load run of every scenario the target supports, into one report',
    options: {
      config: configOption,
      target: {
        kind: 'path',
        description: 'Target file',
        default: 'the SVC_* variables’ target, else start the embedded reference',
      },
      image: imageOption,
      duration: { ...loadFlagKinds.duration, description: 'How long each load scenario runs', default: '3s' },
      warmup: loadOptions.warmup,
      timeout: {
        ...loadFlagKinds.timeout,
        description: 'Budget of every request and stream wait, in the cases and in the load, as a DURATION (2s)',
        default: '10s',
      },
      concurrency: concurrencyOption('Conformance cases'),
      param: loadOptions.param,
      threshold: loadOptions.threshold,
      expectations: expectationsOption,
      'report-dir': {
        kind: 'path',
        description: 'Where report.json, junit.xml, summary.md and index.html go',
        default: 'reports/<timestamp>/',
      },
      ...sinkOptions,
      ...baselineOptions,
      reporter: reporterOption,
      out: outOption,
      ...consoleOptions,
    },
  },
  regions: {
    summary:
      'The same light operations against each region’s base URL (kv: PING, GET, SET; messaging: publish, publish → delivery), interleaved, ranked with 95% intervals',
    options: {
      config: configOption,
      target: {
        kind: 'path',
        description: 'Target file with `regions` in its kv or messaging section (name → base URL)',
        default: 'the SVC_* variables’ target, else start the embedded reference (two messaging regions)',
      },
      duration: {
        kind: 'duration',
        minMs: 1000,
        above: false,
        takes: 'a duration of 1s or more (10s, 1m30s)',
        description: 'Measuring time in all, over every round',
        default: '10s',
      },
      rounds: {
        kind: 'count',
        min: 2,
        description: 'Rounds, each running every region’s operations briefly in a shuffled order (the replicates)',
        default: '10',
      },
      'report-dir': {
        kind: 'path',
        description: 'Where report.json, junit.xml, summary.md and index.html go',
        default: 'reports/<timestamp>/',
      },
      'sink-host': sinkOptions['sink-host'],
      'sink-port': sinkOptions['sink-port'],
      'sink-url': sinkOptions['sink-url'],
      reporter: reporterOption,
    },
  },
  compare: {
    summary:
      'Compare two runs: load metrics per scenario and tag with 95% intervals and a verdict, conformance rules newly failing, passing or blocked; exits 98 on a regression',
    positionals: { name: 'report', description: 'BASELINE CURRENT: two report folders or report.json files' },
    options: {
      tolerance: baselineOptions.tolerance,
      json: { kind: 'boolean', description: 'Print the comparison as JSON (the report.json `compare` section)' },
      'report-dir': {
        kind: 'path',
        description: 'Also write compare.json and compare.md here',
      },
    },
  },
  'k6 install': {
    summary: `Find k6 (K6_BINARY, PATH, the cache) or build the pinned release from the Go module proxy into the cache, and print its path and version`,
    options: {},
  },
  'k6 merge': {
    summary:
      'One report from k6 JSON outputs made elsewhere (the runner pods of a k6-operator run): global percentiles and thresholds',
    positionals: { name: 'output', description: 'k6 JSON output files (`--out json=FILE`), gzipped or not' },
    options: {
      threshold: {
        ...loadOptions.threshold,
        description:
          'k6-syntax threshold METRIC[{tag:value}]:EXPR, e.g. "http_req_duration{batch:100}:p(99)<50", on top of the thresholds the outputs carry, for every scenario in them',
      },
      'report-dir': {
        kind: 'path',
        description: 'Where report.json, junit.xml, summary.md and index.html go',
        default: 'reports/<timestamp>/',
      },
      reporter: reporterOption,
    },
  },
  'k6 manifest': {
    summary:
      'Write a k6-operator TestRun and the ConfigMap holding the scenarios bundled into one k6 script, for a run on Kubernetes',
    positionals: {
      name: 'scenario',
      description: 'Scenarios to bundle, run one after another (default: every one k6 can run)',
    },
    options: {
      config: configOption,
      parallelism: {
        kind: 'count',
        min: 1,
        description: 'Runner pods, each with its own execution segment',
        default: '1',
      },
      target: {
        kind: 'path',
        description:
          'Target file: the kv base URL the pods load and, for messaging scenarios, its messaging URL, sink.url and dialect (its tokens stay out)',
        default: 'the SVC_* variables’ target',
      },
      'base-url': { kind: 'string', description: 'The kv base URL the pods load, instead of --target' },
      'sink-url': {
        kind: 'string',
        description:
          'Base URL the pods’ target delivers the messaging scenarios’ messages to (what the harness’s sink or a proxy answers at), over the target file’s sink.url',
        default: 'the target file’s sink.url',
      },
      name: {
        kind: 'string',
        description: 'Name of the TestRun (the ConfigMap is NAME-script)',
        default: 'svc-harness',
      },
      namespace: { kind: 'string', description: 'Namespace of both objects', default: 'none (kubectl’s)' },
      image: { kind: 'string', description: 'Runner image', default: 'grafana/k6:<pinned k6>' },
      'k6-extension': {
        kind: 'boolean',
        description:
          'The runner image is a k6 with the harness’s extension (k6/x/svc-harness): the bundle imports it, so the runners read an answer only up to the cap (a stock image refuses such a bundle)',
      },
      'token-secret': {
        kind: 'string',
        description: 'Secret (key `token`) the pods read the target’s token from',
        default: 'svc-harness-target',
      },
      'results-claim': {
        kind: 'string',
        description: 'PersistentVolumeClaim (ReadWriteMany) the pods write their JSON outputs to, under /results',
        default: 'svc-harness-results',
      },
      out: { kind: 'path', description: 'Write the manifest here', default: 'standard output' },
      rate: loadOptions.rate,
      duration: loadOptions.duration,
      ramp: loadOptions.ramp,
      model: {
        ...loadOptions.model,
        description:
          'open: arrivals at --rate whatever the target does (k6’s arrival-rate executors); closed: --connections VUs at full speed (constant-vus)',
      },
      connections: loadOptions.connections,
      batch: loadOptions.batch,
      'value-size': loadOptions['value-size'],
      seed: loadOptions.seed,
      timeout: loadOptions.timeout,
      param: loadOptions.param,
      threshold: loadOptions.threshold,
    },
  },
  rules: {
    summary: 'List the rule catalog with each rule’s level, spec section and covering cases',
    options: {
      area: {
        kind: 'list',
        of: targetAreas,
        noun: 'area',
        namesFlag: false,
        description: 'Only these areas, comma-separated: kv, messaging, management',
      },
      json: { kind: 'boolean', description: 'Print JSON instead of text' },
      coverage: {
        kind: 'boolean',
        description:
          'Print the coverage matrix: every cell of each rule’s dimensions, covered by which case or not applicable and why; exit 1 when a cell is left uncovered',
      },
    },
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof commandTable;

/** What `name`'s handler receives: each flag's value of its kind (durations in ms), `_` its positionals. */
export type CommandValues<Name extends CommandName> = Name extends CommandName
  ? SpecValues<(typeof commandTable)[Name]>
  : never;
