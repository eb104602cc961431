/**
 * k6's JSON output (`--out json=FILE`, one JSON object a line, gzipped when the name ends in `.gz`)
 * read into the node engine's Recorder: each `http_req_duration` sample is one request (its value the
 * latency, its `expected_response` and `error_code` tags the outcome), `checks` are checks,
 * `dropped_iterations` drops, and the script's `svc_tally`, `svc_sent` and `svc_threshold` its tallies,
 * what it sent and the thresholds it was given; `svc_garbage` regrades an answer as garbage, and
 * `svc_garbage_ms` takes a 2xx garbage answer's duration back out of the latency.
 * One RecorderPart per scenario per file, so segments, pods and files merge by decode and add, exactly
 * as worker threads do. Lines of other metrics are skipped before they are parsed.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { PublishFate } from '../../../protocol/scenario.ts';
import { parseThreshold, type Threshold } from '../../../results/threshold.ts';
import { harnessError, oneLine } from '../../../shared/errors.ts';
import { publishFates } from '../fate-log.ts';
import type { PartProgress } from '../recorder.ts';
import { Recorder, type RecorderPart } from '../recorder.ts';
import { errorClassOfK6 } from './k6-codes.ts';
import { FollowStop, followFile } from './k6-follow.ts';
import { commandsTag, fateMetadata, garbageLimitTag, garbageStatusTag, k6Metrics } from './script/k6-config.ts';

/** Tags k6 or k6-operator add; what is left are the scenario's own (`batch`, `op`). */
const foreignTags = new Set([
  'status',
  'method',
  'error',
  'error_code',
  'expected_response',
  'scenario',
  'check',
  'group',
  'name',
  'url',
  'proto',
  'subproto',
  'tls_version',
  'service',
  'instance_id',
  'testrun_name',
  'tally',
  'mark',
  commandsTag,
  garbageStatusTag,
  garbageLimitTag,
]);

const wanted = new Set([
  'http_req_duration',
  'checks',
  'dropped_iterations',
  k6Metrics.sent,
  k6Metrics.tally,
  k6Metrics.mark,
  k6Metrics.fate,
  k6Metrics.threshold,
  k6Metrics.garbage,
  k6Metrics.garbageDuration,
]);

interface Point {
  readonly metric: string;
  readonly type: 'Point';
  readonly data: {
    readonly time: string;
    readonly value: number;
    readonly tags?: Readonly<Record<string, string>>;
    /** What a sample carries unindexed (k6's VU metadata): a fate's iteration, send time and ids. */
    readonly metadata?: Readonly<Record<string, string>>;
  };
}

/** What the files hold per k6 scenario. */
export interface K6ScenarioOutput {
  readonly parts: RecorderPart[];
  /** The thresholds the script was given on this scenario (its `svc_threshold` samples). */
  readonly thresholds: Threshold[];
  /** Epoch ms of the first and last sample: the load's span. */
  firstMs: number;
  lastMs: number;
}

export interface K6Output {
  readonly scenarios: Map<string, K6ScenarioOutput>;
  /** Files read and lines taken. */
  readonly files: number;
  readonly samples: number;
}

/** Samples held back until a file's recorder starts: its second 0 is the earliest of them. */
const holdBack = 2_000;

/**
 * A file followed while k6 writes it starts its recorder once its samples span this long: k6 writes
 * about in time order (a flush every 200 ms), so the earliest is among them, and the live figures
 * need not wait for 2,000 samples of a slow scenario.
 */
const holdBackMs = 1_000;

/**
 * One scenario in one file. Its seconds count from the file's first sample of the scenario, so second
 * 0 is the load's first second (as on the node engine), not a wall-clock second cut in two; k6
 * writes about, not exactly, in time order, so the first samples are held back and the earliest of
 * them is the start. Files are lined up by their starts at the end.
 */
class FileScenario {
  #recorder: Recorder | undefined;
  #pending: ((recorder: Recorder) => void)[] = [];
  readonly #followed: boolean;
  originMs = 0;
  sent = 0;
  answered = 0;
  firstMs = Number.POSITIVE_INFINITY;
  lastMs = 0;

  constructor(followed: boolean) {
    this.#followed = followed;
  }

  /** A sample at `at` (epoch ms); `record` puts it into the recorder, now or once it starts. */
  add(at: number, record?: (recorder: Recorder) => void): void {
    if (at < this.firstMs) this.firstMs = at;
    if (at > this.lastMs) this.lastMs = at;
    if (!record) return;
    if (this.#recorder) record(this.#recorder);
    else if (this.#pending.push(record) >= holdBack || (this.#followed && this.lastMs - this.firstMs >= holdBackMs)) {
      this.recorder();
    }
  }

  /** The recorder if it started (a followed file's live figures come from it). */
  get started(): Recorder | undefined {
    return this.#recorder;
  }

  recorder(): Recorder {
    if (!this.#recorder) {
      this.originMs = this.firstMs;
      this.#recorder = new Recorder(this.originMs);
      for (const record of this.#pending) record(this.#recorder);
      this.#pending = [];
    }
    return this.#recorder;
  }
}

export interface ReadOptions {
  /**
   * Called for a file that is missing, cut off or damaged, with one line: the samples read before the
   * damage are kept (a run's own segments: one k6 killed must not void the others). Without it, such
   * a file is an SVC_CONFIG error (files handed to `k6 merge`).
   */
  readonly onBadFile?: (line: string) => void;
  /**
   * The files are still being written (k6 runs): each is read as it grows, all at once, until
   * `live.stop()`, then to its end; `live.progress` has the figures read so far.
   */
  readonly live?: K6LiveRead;
}

/**
 * The live side of reading files k6 still writes: the figures of each file's recorders so far, as the
 * node engine's parts post them (PartProgress). They come from the very recorders whose parts make
 * the result at the end, so what the live figures counted is part of the result, never more.
 */
export class K6LiveRead {
  readonly follow = new FollowStop();
  readonly #files: ReadonlyMap<string, FileScenario>[] = [];

  /** @internal A file's scenarios, registered by the reader as it opens the file. */
  register(scenarios: ReadonlyMap<string, FileScenario>): void {
    this.#files.push(scenarios);
  }

  /** k6 has exited: read every file to its end. */
  stop(): void {
    this.follow.stop();
  }

  /**
   * A scenario's figures so far, one part per file whose recorder started (undefined before any
   * did), each file's seconds moved to the earliest file's as at the end, and the epoch ms of the
   * scenario's first sample. A file's "now" is its newest sample: its last whole second is the one
   * before, which k6's flushes have written by then.
   */
  progress(scenario: string): { readonly parts: PartProgress[]; readonly firstMs: number } | undefined {
    const started = this.#files
      .map((file) => file.get(scenario))
      .filter((entry): entry is FileScenario => entry?.started !== undefined);
    if (started.length === 0) return undefined;
    const start = Math.min(...started.map((entry) => entry.originMs));
    const parts = started.map((entry) => {
      const part = (entry.started as Recorder).progress(entry.lastMs);
      const shift = Math.round((entry.originMs - start) / 1000);
      return shift === 0 || part.second < 0 ? part : { ...part, second: part.second + shift };
    });
    return { parts, firstMs: Math.min(...started.map((entry) => entry.firstMs)) };
  }

  /** A scenario's totals so far (Recorder.totals), one per file whose recorder started: what live thresholds judge. */
  totals(scenario: string): RecorderPart[] {
    return this.#files.flatMap((file) => {
      const recorder = file.get(scenario)?.started;
      return recorder ? [recorder.totals()] : [];
    });
  }
}

export async function readK6Outputs(files: readonly string[], options: ReadOptions = {}): Promise<K6Output> {
  const scenarios = new Map<string, K6ScenarioOutput>();
  const thresholdTexts = new Map<string, Set<string>>();
  const origins = new Map<RecorderPart, number>();
  let samples = 0;
  const scenarioOf = (name: string) => {
    let entry = scenarios.get(name);
    if (!entry) {
      entry = { parts: [], thresholds: [], firstMs: Number.POSITIVE_INFINITY, lastMs: 0 };
      scenarios.set(name, entry);
    }
    return entry;
  };

  const live = options.live;
  /** One file's samples, per scenario (its sent, answered and span beside its recorder). */
  const readOne = async (file: string): Promise<Map<string, FileScenario>> => {
    const perScenario = new Map<string, FileScenario>();
    live?.register(perScenario);
    const interned = new Map<string, Readonly<Record<string, string>>>();
    const ownTags = (tags: Readonly<Record<string, string>>) => {
      const kept: [string, string][] = [];
      for (const key in tags) if (!foreignTags.has(key)) kept.push([key, tags[key] as string]);
      kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const key = kept.map(([name, value]) => `${name}=${value}`).join(',');
      let object = interned.get(key);
      if (!object) {
        object = Object.fromEntries(kept);
        interned.set(key, object);
      }
      return object;
    };
    const forScenario = (name: string): FileScenario => {
      let entry = perScenario.get(name);
      if (!entry) {
        entry = new FileScenario(live !== undefined);
        perScenario.set(name, entry);
      }
      return entry;
    };

    const source: Readable = live ? followFile(file, live.follow) : createReadStream(file);
    let stream: NodeJS.ReadableStream = source;
    if (file.endsWith('.gz')) {
      const gunzip = createGunzip();
      // pipe() does not pass the file's errors on (a missing file, a folder): the reader must see them.
      source.on('error', (error: Error) => gunzip.destroy(error));
      stream = source.pipe(gunzip);
    }
    const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
    let lineNumber = 0;
    try {
      for await (const line of lines) {
        lineNumber++;
        if (line.startsWith('{"type":"Metric"')) continue;
        // `{"metric":"NAME","type":"Point",…`: the name is read before anything is parsed.
        if (!line.startsWith('{"metric":"')) {
          if (line.trim() === '') continue;
          throw new Error(`line ${lineNumber} is not a k6 JSON output line`);
        }
        const metric = line.slice(11, line.indexOf('"', 11));
        if (!wanted.has(metric)) continue;
        const point = JSON.parse(line) as Point;
        const tags = point.data.tags ?? {};
        if (metric === k6Metrics.threshold) {
          // From setup, once per runner: the thresholds the script was given, per scenario.
          if (tags.svc_scenario === undefined || tags.threshold === undefined) continue;
          const texts = thresholdTexts.get(tags.svc_scenario) ?? new Set<string>();
          texts.add(tags.threshold);
          thresholdTexts.set(tags.svc_scenario, texts);
          continue;
        }
        // Samples without a scenario come from setup and teardown: not part of the load.
        const scenarioName = tags.scenario;
        if (scenarioName === undefined) continue;
        samples++;
        const at = Date.parse(point.data.time);
        if (!Number.isFinite(at) || typeof point.data.value !== 'number') {
          throw new Error(`line ${lineNumber} has no time or value k6 would write`);
        }
        const entry = forScenario(scenarioName);
        const value = point.data.value;
        if (metric === 'http_req_duration') {
          entry.answered++;
          const own = ownTags(tags);
          entry.add(at, (recorder) => {
            recorder.sent(own, at);
            if (tags.status === '0' || tags.status === undefined) {
              const kind = errorClassOfK6(tags.error_code, tags.error);
              recorder.failed(own, kind, `k6 error ${tags.error_code ?? '?'}: ${tags.error ?? 'no answer'}`, at);
            } else if (tags.expected_response === 'false') {
              recorder.failed(own, 'status', `status ${tags.status}`, at);
            } else {
              recorder.completed(own, Number(tags[commandsTag] ?? 1) || 1, value, at);
            }
          });
        } else if (metric === 'checks') {
          entry.add(at, (recorder) => recorder.check(tags.check ?? 'unnamed check', value === 1));
        } else if (metric === 'dropped_iterations') {
          entry.add(at, (recorder) => recorder.droppedUntagged(value, at));
        } else if (metric === k6Metrics.garbage) {
          const own = ownTags(tags);
          const was2xx = tags[garbageStatusTag] === '2xx';
          const commands = Number(tags[commandsTag] ?? 1) || 1;
          const limit = tags[garbageLimitTag];
          // The node engine's words for the same two cases (record-result.ts).
          const example =
            limit === undefined
              ? 'an answer that says it is JSON and is not'
              : `an answer longer than ${limit} bytes (the scenario's largest answer with room, or maxAnswerBytes)`;
          entry.add(at, (recorder) => recorder.regradeAsGarbage(own, at, was2xx, commands, example));
        } else if (metric === k6Metrics.garbageDuration) {
          const own = ownTags(tags);
          entry.add(at, (recorder) => recorder.withdrawLatency(own, at, value));
        } else if (metric === k6Metrics.mark) {
          entry.add(at, (recorder) => recorder.mark(tags.mark ?? 'unnamed', value));
        } else if (metric === k6Metrics.fate) {
          const metadata = point.data.metadata ?? {};
          const index = Number(metadata[fateMetadata.index]);
          const sentAt = Number(metadata[fateMetadata.sentAt]);
          const fate = tags.fate;
          if (
            !Number.isInteger(index) ||
            !Number.isFinite(sentAt) ||
            fate === undefined ||
            !publishFates.includes(fate as PublishFate)
          ) {
            throw new Error(`line ${lineNumber} is a publish's fate without its iteration, send time or fate`);
          }
          const ids = metadata[fateMetadata.ids]?.split(' ');
          // Answered when k6 took the sample (the script adds it as the answer is judged); none for an indeterminate.
          entry.add(at, (recorder) =>
            recorder.fate(index, fate as PublishFate, sentAt, ids, fate === 'indeterminate' ? undefined : at),
          );
        } else if (metric === k6Metrics.tally) {
          entry.add(at, (recorder) => recorder.tally(tags.tally ?? 'unnamed', value));
        } else {
          // What the script sent: counted, and its time is the load's start (a request's start, not its end).
          entry.sent += value;
          entry.add(at);
        }
      }
    } catch (error) {
      if (!options.onBadFile) throw harnessError('SVC_CONFIG', `k6 output ${file}: ${oneLine(error)}`);
      options.onBadFile(`k6 output ${file}: ${oneLine(error)} (the samples before it are kept)`);
    } finally {
      lines.close();
      source.destroy();
    }
    return perScenario;
  };

  // Followed files grow together: all read at once. Their parts are taken in the files' order.
  const read = live
    ? await Promise.all(files.map(readOne))
    : await files.reduce<Promise<Map<string, FileScenario>[]>>(
        async (done, file) => [...(await done), await readOne(file)],
        Promise.resolve([]),
      );
  for (const perScenario of read) {
    for (const [name, entry] of perScenario) {
      // Sent by the script, never answered: k6 stopped (interrupted) before their samples were made.
      const recorder = entry.recorder();
      const unseen = entry.sent - entry.answered;
      if (unseen > 0) {
        recorder.cutShort(
          unseen,
          'sent, and no answer in k6’s output (k6 stopped first, or its output was cut off)',
          true,
        );
      }
      const target = scenarioOf(name);
      const part = recorder.part();
      target.parts.push(part);
      origins.set(part, entry.originMs);
      recorder.destroy();
      target.firstMs = Math.min(target.firstMs, entry.firstMs);
      target.lastMs = Math.max(target.lastMs, entry.lastMs);
    }
  }

  // A scenario with thresholds and no request is kept: its thresholds then fail for want of data.
  for (const name of thresholdTexts.keys()) scenarioOf(name);
  for (const [name, entry] of scenarios) {
    // Each file's seconds moved by how much later than the earliest file it started (to the nearest second).
    const start = Math.min(...entry.parts.map((part) => origins.get(part) ?? entry.firstMs));
    const aligned = entry.parts.map((part) => {
      const shift = Math.round(((origins.get(part) ?? start) - start) / 1000);
      return shift === 0
        ? part
        : { ...part, seconds: part.seconds.map((item) => ({ ...item, second: item.second + shift })) };
    });
    entry.parts.splice(0, entry.parts.length, ...aligned);
    if (entry.parts.length === 0) {
      entry.firstMs = 0;
      entry.lastMs = 0;
    }
    for (const text of thresholdTexts.get(name) ?? []) {
      try {
        entry.thresholds.push(parseThreshold(text, 'scenario'));
      } catch (error) {
        throw harnessError(
          'SVC_CONFIG',
          `k6 output: scenario ${name} carries a threshold the harness cannot read: ${oneLine(error)}`,
        );
      }
    }
  }
  return { scenarios, files: files.length, samples };
}
