/**
 * What the harness tells the k6 script: plain data, written into the generated entry (never a secret:
 * credentials reach k6 through its environment, `SVC_K6_HEADERS`, or `SVC_K6_TOKEN` and
 * `SVC_K6_MESSAGING_TOKEN` in k6-operator's pods). Shared by the Node side that writes it and the
 * script that reads it inside k6.
 */
import type { ScenarioOptions } from '../../../../protocol/scenario.ts';

export interface K6ScenarioConfig {
  /** The harness's scenario name, also the k6 scenario's name and its exported function. */
  readonly name: string;
  readonly options: ScenarioOptions;
  /** Set by the harness when it ran setup itself; else the script's setup makes one. */
  readonly prefix?: string;
  /**
   * The harness's thresholds on this scenario, as written (those on metrics k6 lacks too). The script
   * writes them into its output once, so `k6 merge` judges the files by them: k6's JSON output keeps
   * no thresholds of its own.
   */
  readonly thresholds?: readonly string[];
  /**
   * The open model's planned arrivals (the node engine's schedule total, ⌊rate × duration⌋ for a
   * constant rate): k6's arrival-rate executors start one more at the very end, which sends nothing,
   * so both engines send the same iterations (a notify-fanout round exists for each). Absent: no cap.
   */
  readonly iterations?: number;
  /** The target area it loads: which base URL and which credentials its requests carry. @default 'kv' */
  readonly area?: 'kv' | 'messaging';
  /**
   * Where a bundle's own setup (k6-operator: no harness ran it) hands the target URLs of the sink:
   * the target's `sink.url`, under which each runner's URLs sit as `<sinkUrl>/<token>/<role><rest>`.
   * Absent in local runs: the harness ran setup with its own sink.
   */
  readonly sinkUrl?: string;
  /**
   * The most bytes an answer may hold, as the node engine's cap on one answer (the target's
   * `maxAnswerBytes`, lowered to `answerRoom` of the scenario's `largestAnswer`): a longer answer is
   * garbage and its check sees none. @default 100 MiB (load-target.ts's default)
   */
  readonly maxAnswerBytes?: number;
}

export interface K6Config {
  /** The base URL of the scenarios' area (kv's in a bundle for k6-operator), without a trailing slash. */
  readonly baseUrl: string;
  /** A k6-operator bundle's messaging base URL, for its messaging scenarios; else they use `baseUrl`. */
  readonly messagingBaseUrl?: string;
  /** The dialect's vendor-header prefix a scenario's `Svc-…` headers are renamed to. @default 'Svc-' */
  readonly headerPrefix?: string;
  readonly timeoutMs: number;
  readonly scenarios: readonly K6ScenarioConfig[];
  /** k6's `options` (scenarios, executors, thresholds), built by the harness. */
  readonly k6Options: Readonly<Record<string, unknown>>;
  /**
   * A JSON file with each scenario's state, from a setup the harness ran (local runs, and every
   * segment shares it). Absent in a bundle for k6-operator: each runner runs the scenarios' setup.
   */
  readonly stateFile?: string;
}

/** The custom metrics the script adds to k6's own, read back by the output reader. */
export const k6Metrics = {
  /** One per request, before it is sent: what was sent, so a request cut short is counted. */
  sent: 'svc_sent',
  /** A scenario's tallies, by the tag `tally`. */
  tally: 'svc_tally',
  /** A scenario's marks: one sample per marked iteration, its value the index, the set in the tag `mark`. */
  mark: 'svc_mark',
  /**
   * A publish's fate (the soak's checker, issue 39): one sample per publish at its answer, the fate in
   * the tag `fate`, and its iteration, send time and message ids in the sample's metadata
   * (`fateMetadata`): k6 indexes tags into interned tag sets, which a value per publish would grow for
   * the whole run; metadata it writes beside the sample and forgets.
   */
  fate: 'svc_fate',
  /** One zero-valued sample per threshold, from setup: tags `svc_scenario` and `threshold`. */
  threshold: 'svc_threshold',
  /** One per answer that says it is JSON and is not: the request's tags and `svc_status` (2xx or other). */
  garbage: 'svc_garbage',
  /**
   * Beside each 2xx garbage sample, the request's duration (ms, k6's own `http_req_duration` value):
   * k6 wrote that duration as a completed answer's, and latency is of completed answers only, so the
   * reader takes it back out of the histograms.
   */
  garbageDuration: 'svc_garbage_ms',
} as const;

/** The metadata keys of a `svc_fate` sample: the iteration, the send time (Unix ms), the ids space-separated. */
export const fateMetadata = { index: 'svc_index', sentAt: 'svc_sent', ids: 'svc_ids' } as const;

/** The tag a request carries with its count of key-value commands (stripped from the tags kept). */
export const commandsTag = 'svc_commands';

/**
 * On a garbage sample of an answer longer than its scenario's cap: the cap in bytes (one value per
 * scenario), so the reader names it as the node engine does. Absent: a JSON answer that is not JSON.
 */
export const garbageLimitTag = 'svc_limit';

/** On a garbage sample: whether the answer's status was 2xx (k6 counted it completed) or not (failed). */
export const garbageStatusTag = 'svc_status';

/** The only system tags k6 is asked to write: no `url` or `name`, which would carry keys and values. */
export const k6SystemTags = ['status', 'method', 'error', 'error_code', 'expected_response', 'scenario', 'check'];
