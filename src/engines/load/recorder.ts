/**
 * What one engine part (the main thread, a worker, a k6 segment or output file) measures of one scenario:
 * HDR histograms overall, per tag set and per second; request counts; checks; classified errors;
 * the scenario's tallies. A part is turned into plain data (`RecorderPart`, histograms encoded) and
 * parts are merged by decode and add. No list of samples anywhere.
 */

import type { PublishFate, Tally } from '../../protocol/scenario.ts';
import {
  decodeHistogram,
  encodeHistogram,
  type Histogram,
  mergeEncoded,
  newHistogram,
  newSecondHistogram,
  recordMs,
  summarize,
  summarizeAsDecoded,
  withLiveHistogram,
} from '../../results/histogram.ts';
import type {
  CheckTotals,
  ErrorClass,
  ErrorCount,
  LatencySummary,
  RequestCounts,
  SeriesPoint,
  TagMetrics,
} from '../../results/load-run.ts';
import { FateLog, type FatePart, mergeFates } from './fate-log.ts';

interface Counts {
  sent: number;
  completed: number;
  failed: number;
  dropped: number;
}

const zero = (): Counts => ({ sent: 0, completed: 0, failed: 0, dropped: 0 });

interface TagEntry {
  readonly tags: Readonly<Record<string, string>>;
  readonly counts: Counts;
  commands: number;
  readonly histogram: Histogram;
}

interface SecondEntry {
  readonly counts: Counts;
  /** Live while the second may still get records; encoded (and its array freed) once it is well past. */
  histogram: Histogram | undefined;
  encoded?: string;
}

/** Seconds this far behind the newest one are closed: their histograms encoded, their arrays freed. */
const openSeconds = 3;

/** A part as plain data: what a worker posts, what parts merge from. */
export interface RecorderPart {
  readonly counts: RequestCounts;
  readonly commands: number;
  readonly histogram: string;
  readonly tags: readonly {
    tags: Readonly<Record<string, string>>;
    counts: RequestCounts;
    commands: number;
    histogram: string;
  }[];
  readonly seconds: readonly { second: number; counts: RequestCounts; histogram: string }[];
  readonly checks: readonly CheckTotals[];
  readonly errors: readonly ErrorCount[];
  readonly tallies: Readonly<Record<string, number>>;
  /** The scenario's marked iteration indices by set name (`accepted`), each index once. */
  readonly marks: Readonly<Record<string, readonly number[]>>;
  /** Each publish's fate, when the scenario tells them (messaging, for the soak's checker). */
  readonly fates?: FatePart;
}

/**
 * What a part tells once a second while it runs: the console's figures, every count so far (in all,
 * per tag set, per check), and the last whole second's latency histogram, encoded, which parts (worker
 * threads) merge by decode and add.
 */
export interface PartProgress {
  /** Requests that ended in the last whole second. */
  readonly rate: number;
  /** p99 (ms) of the last whole second's completed answers. */
  readonly p99Ms: number;
  readonly errors: number;
  readonly dropped: number;
  readonly requests: RequestCounts;
  readonly tags: readonly { readonly tags: Readonly<Record<string, string>>; readonly requests: RequestCounts }[];
  readonly checks: readonly CheckTotals[];
  /** The last whole second, from 0 at the scenario's start; -1 before the first has ended. */
  readonly second: number;
  /** That second's completed answers' latency, encoded (a per-second histogram). */
  readonly histogram: string;
  /** The part's totals so far (Recorder.totals), when asked: what live thresholds are judged over. */
  readonly totals?: RecorderPart;
  /**
   * That second's latency summarized straight from the part's histogram, on the part's own thread
   * only (not enumerable: a worker's post leaves it out): a scenario of one part reads it instead of
   * encoding the histogram to decode it again.
   */
  readonly latencyMs?: LatencySummary;
}

let emptySecond: string | undefined;

/** An empty per-second histogram, encoded once. */
function emptySecondEncoded(): string {
  if (emptySecond === undefined) {
    const histogram = newSecondHistogram();
    emptySecond = encodeHistogram(histogram);
    histogram.destroy();
  }
  return emptySecond;
}

export const tagKey = (tags: Readonly<Record<string, string>>) =>
  Object.keys(tags)
    .sort()
    .map((key) => `${key}=${tags[key]}`)
    .join(',');

export class Recorder {
  readonly #origin: number;
  readonly #counts = zero();
  #commands = 0;
  readonly #histogram = newHistogram();
  readonly #tags = new Map<string, TagEntry>();
  /**
   * Tag objects seen lately and their entries: scenarios reuse their tag objects, so most lookups end
   * here without building the sorted key. Bounded and cleared when full, not a WeakMap: a scenario
   * that makes a new object per request (a plain `{}`) churned an entry per request through a
   * WeakMap, and its table's growth showed as resident memory in long runs.
   */
  readonly #byObject = new Map<object, TagEntry>();
  readonly #seconds = new Map<number, SecondEntry>();
  #newestSecond = -1;
  readonly #checks = new Map<string, { passes: number; fails: number }>();
  readonly #errors = new Map<ErrorClass, { count: number; example: string }>();
  readonly #tallies = new Map<string, number>();
  readonly #marks = new Map<string, Set<number>>();
  #fates: FateLog | undefined;
  /** Per tag, the seconds of regraded answers whose latency is still to be withdrawn, oldest first. */
  readonly #regradedSeconds = new Map<TagEntry, number[]>();
  #withdrawn: { overall?: Histogram; tags: Map<TagEntry, Histogram>; seconds: Map<number, Histogram> } = {
    tags: new Map(),
    seconds: new Map(),
  };

  /** `origin`: the scenario's start on `performance.now()`'s clock; seconds count from it. */
  constructor(origin: number) {
    this.#origin = origin;
  }

  #tag(tags: Readonly<Record<string, string>>): TagEntry {
    const known = this.#byObject.get(tags);
    if (known) return known;
    const key = tagKey(tags);
    let entry = this.#tags.get(key);
    if (!entry) {
      entry = { tags, counts: zero(), commands: 0, histogram: newHistogram() };
      this.#tags.set(key, entry);
    }
    if (this.#byObject.size >= 64) this.#byObject.clear();
    this.#byObject.set(tags, entry);
    return entry;
  }

  #second(at: number): SecondEntry {
    // A hair over: an arrival due exactly on a second (origin + n·1000/rate) must not fall into the one before by rounding.
    const second = Math.max(0, Math.floor((at - this.#origin) / 1000 + 1e-6));
    let entry = this.#seconds.get(second);
    if (!entry) {
      entry = { counts: zero(), histogram: newSecondHistogram() };
      this.#seconds.set(second, entry);
    }
    if (second > this.#newestSecond) {
      this.#newestSecond = second;
      this.#closeSeconds();
    }
    return entry;
  }

  /**
   * A run keeps one histogram per second; kept live, a long run's memory would grow with its length
   * (13 KB a second). Seconds well past are encoded (a few hundred bytes) and their arrays freed.
   */
  #closeSeconds(): void {
    for (const [second, entry] of this.#seconds) {
      if (second > this.#newestSecond - openSeconds) continue;
      if (entry.histogram) {
        entry.encoded = encodeHistogram(entry.histogram);
        entry.histogram.destroy();
        entry.histogram = undefined;
      }
    }
  }

  /**
   * The second a regraded answer was counted complete in: the newest second up to `at` holding a
   * completion. k6 times a request's sample at its answer's end and the script's garbage sample after
   * it has weighed the answer, so the two can fall on either side of a second's edge (a 16 MB answer's
   * bytes take milliseconds to reach the script): taken from the garbage sample's own second, the
   * completion came out of a second that had none and the series showed -1 completed.
   */
  #completedSecondUpTo(at: number): number {
    const own = Math.max(0, Math.floor((at - this.#origin) / 1000 + 1e-6));
    for (let second = own; second >= 0 && second >= own - 60; second--) {
      if ((this.#seconds.get(second)?.counts.completed ?? 0) > 0) return second;
    }
    return own;
  }

  /** A second's histogram to record into: a closed one is reopened (a late record: rare). */
  #secondHistogram(entry: SecondEntry): Histogram {
    if (!entry.histogram) {
      entry.histogram =
        entry.encoded === undefined ? newSecondHistogram() : decodeHistogram(entry.encoded, newSecondHistogram);
      entry.encoded = undefined;
    }
    return entry.histogram;
  }

  sent(tags: Readonly<Record<string, string>>, at: number): void {
    this.#counts.sent++;
    this.#tag(tags).counts.sent++;
    this.#second(at).counts.sent++;
  }

  /**
   * A request sent at `at` whose answer will never be read (autocannon abandons its in-flight
   * requests when it stops): taken back out of `sent`, so it is neither completed nor failed.
   */
  withdraw(tags: Readonly<Record<string, string>>, at: number): void {
    this.#counts.sent--;
    this.#tag(tags).counts.sent--;
    this.#second(at).counts.sent--;
  }

  /** A request due at `at` that could not be sent: counted, never hidden. */
  dropped(tags: Readonly<Record<string, string>>, at: number): void {
    this.#counts.dropped++;
    this.#tag(tags).counts.dropped++;
    this.#second(at).counts.dropped++;
  }

  /** An answered request; `latencyMs` from its intended start in the open model. */
  completed(tags: Readonly<Record<string, string>>, commands: number, latencyMs: number, at: number): void {
    this.#counts.completed++;
    this.#commands += commands;
    const tag = this.#tag(tags);
    tag.counts.completed++;
    tag.commands += commands;
    recordMs(this.#histogram, latencyMs);
    recordMs(tag.histogram, latencyMs);
    const second = this.#second(at);
    second.counts.completed++;
    recordMs(this.#secondHistogram(second), latencyMs);
  }

  /**
   * A failed request (no answer, or a status the scenario does not expect): counted, classified, and
   * kept out of every latency histogram. Latency is of completed answers only: a refusal answered in
   * 1 ms, or a reset, says nothing of how fast the service serves, and with its latency counted a run
   * whose every request was refused would pass `http_req_duration: p(99)<500` (k6's
   * `http_req_duration{expected_response:true}` makes the same cut).
   */
  failed(tags: Readonly<Record<string, string>>, kind: ErrorClass, example: string, at: number): void {
    this.#counts.failed++;
    this.#tag(tags).counts.failed++;
    this.#second(at).counts.failed++;
    this.error(kind, example);
  }

  /** Due requests that could not be sent, known only by count and time (k6 reports its drops so). */
  droppedUntagged(count: number, at: number): void {
    this.#counts.dropped += count;
    this.#second(at).counts.dropped += count;
  }

  /**
   * Requests still in flight when the run ended: failed, class `cut-short` (their tags are not kept).
   * `alsoSent`: they were not counted as sent yet (k6's samples come with the answer, so a request k6
   * never finished is known only by the script's count of what it sent).
   */
  cutShort(count: number, example: string, alsoSent = false): void {
    if (count === 0) return;
    if (alsoSent) this.#counts.sent += count;
    this.#counts.failed += count;
    const entry = this.#errors.get('cut-short');
    if (entry) entry.count += count;
    else this.#errors.set('cut-short', { count, example });
  }

  /**
   * An answer already counted (completed when its status was 2xx, else failed by `status`) that turns
   * out to be garbage (it says JSON and is not): k6 reports that apart from the request's own sample.
   */
  regradeAsGarbage(
    tags: Readonly<Record<string, string>>,
    at: number,
    was2xx: boolean,
    commands: number,
    example: string,
  ): void {
    if (was2xx) {
      const tag = this.#tag(tags);
      const index = this.#completedSecondUpTo(at);
      const second = this.#second(this.#origin + index * 1000);
      // Its latency, withdrawn next (withdrawLatency), leaves the same second's histogram.
      const pending = this.#regradedSeconds.get(tag);
      if (pending) pending.push(index);
      else this.#regradedSeconds.set(tag, [index]);
      for (const counts of [this.#counts, tag.counts, second.counts]) {
        counts.completed--;
        counts.failed++;
      }
      this.#commands -= commands;
      tag.commands -= commands;
    } else {
      const status = this.#errors.get('status');
      if (status && --status.count === 0) this.#errors.delete('status');
    }
    this.error('garbage', example);
  }

  /**
   * Takes a latency recorded as a completed answer's back out (k6 writes a request's duration before
   * its script finds the answer is garbage): kept apart, and subtracted from the histograms when the
   * part is made, once per histogram rather than once per sample.
   */
  withdrawLatency(tags: Readonly<Record<string, string>>, at: number, latencyMs: number): void {
    const tag = this.#tag(tags);
    const second = this.#regradedSeconds.get(tag)?.shift() ?? this.#completedSecondUpTo(at);
    const withdrawn = this.#withdrawn;
    withdrawn.overall ??= newHistogram();
    recordMs(withdrawn.overall, latencyMs);
    let forTag = withdrawn.tags.get(tag);
    if (!forTag) {
      forTag = newHistogram();
      withdrawn.tags.set(tag, forTag);
    }
    recordMs(forTag, latencyMs);
    let forSecond = withdrawn.seconds.get(second);
    if (!forSecond) {
      forSecond = newSecondHistogram();
      withdrawn.seconds.set(second, forSecond);
    }
    recordMs(forSecond, latencyMs);
  }

  /** Subtracts what was withdrawn (see withdrawLatency), once. */
  #applyWithdrawn(): void {
    const { overall, tags, seconds } = this.#withdrawn;
    if (overall) this.#histogram.subtract(overall);
    for (const [tag, histogram] of tags) tag.histogram.subtract(histogram);
    for (const [second, histogram] of seconds) {
      const entry = this.#seconds.get(second);
      if (entry) this.#secondHistogram(entry).subtract(histogram);
    }
    for (const histogram of [overall, ...tags.values(), ...seconds.values()]) histogram?.destroy();
    this.#withdrawn = { tags: new Map(), seconds: new Map() };
  }

  error(kind: ErrorClass, example: string): void {
    const entry = this.#errors.get(kind);
    if (entry) entry.count++;
    else this.#errors.set(kind, { count: 1, example });
  }

  check(name: string, ok: boolean): void {
    let entry = this.#checks.get(name);
    if (!entry) {
      entry = { passes: 0, fails: 0 };
      this.#checks.set(name, entry);
    }
    if (ok) entry.passes++;
    else entry.fails++;
  }

  tally(name: string, value = 1): void {
    this.#tallies.set(name, (this.#tallies.get(name) ?? 0) + value);
  }

  mark(name: string, index: number): void {
    let set = this.#marks.get(name);
    if (!set) {
      set = new Set();
      this.#marks.set(name, set);
    }
    set.add(index);
  }

  /**
   * A publish's fate (fate-log.ts), answered at `answeredAt` (Unix ms; k6's sample time), or now when
   * not given; an indeterminate one was never answered.
   */
  fate(index: number, fate: PublishFate, sentAt: number, ids?: readonly string[], answeredAt?: number): void {
    this.#fates ??= new FateLog();
    this.#fates.add(index, fate, sentAt, fate === 'indeterminate' ? undefined : (answeredAt ?? Date.now()), ids);
  }

  /** The scenario's counters as the scenario API sees them (k6's adapter gives add and mark). */
  get tallyApi(): Tally {
    return {
      add: (name, value) => this.tally(name, value),
      mark: (name, index) => this.mark(name, index),
      fate: (index, fate, sentAt, ids) => this.fate(index, fate, sentAt, ids),
    };
  }

  /** The last whole second's answered requests (completed or failed) and the completed ones' p99, for the progress line. */
  lastSecond(now: number): { rate: number; p99Ms: number } {
    const second = Math.floor((now - this.#origin) / 1000) - 1;
    const entry = this.#seconds.get(second);
    if (!entry?.histogram) return { rate: entry ? entry.counts.completed + entry.counts.failed : 0, p99Ms: 0 };
    // One percentile of a small histogram: this runs on the sending thread once a second.
    const p99Ms = entry.histogram.totalCount === 0 ? 0 : Math.round(entry.histogram.getValueAtPercentile(99)) / 1000;
    return { rate: entry.counts.completed + entry.counts.failed, p99Ms };
  }

  /** The figures a part posts once a second (PartProgress), at `now` on the part's clock; its totals too when asked. */
  progress(now: number, withTotals = false): PartProgress {
    const { rate, p99Ms } = this.lastSecond(now);
    const second = Math.floor((now - this.#origin) / 1000) - 1;
    const entry = this.#seconds.get(second);
    let encoded: string | undefined;
    const progress: PartProgress = {
      rate,
      p99Ms,
      errors: this.#counts.failed,
      dropped: this.#counts.dropped,
      requests: { ...this.#counts },
      tags: [...this.#tags.values()].map((tag) => ({ tags: tag.tags, requests: { ...tag.counts } })),
      checks: [...this.#checks.entries()].map(([name, check]) => ({ name, ...check })),
      second,
      // Encoded when first read (a worker's post reads it; on the main thread only live outputs do).
      get histogram() {
        encoded ??= entry?.histogram ? encodeHistogram(entry.histogram) : (entry?.encoded ?? emptySecondEncoded());
        return encoded;
      },
      ...(withTotals && { totals: this.totals() }),
    };
    let summary: LatencySummary | undefined;
    return Object.defineProperty(progress, 'latencyMs', {
      enumerable: false,
      get: () => {
        summary ??= entry?.histogram ? summarizeAsDecoded(entry.histogram) : summarizeEncoded(progress.histogram);
        return summary;
      },
    });
  }

  get failures(): number {
    return this.#counts.failed;
  }

  get drops(): number {
    return this.#counts.dropped;
  }

  part(): RecorderPart {
    return this.#part(true);
  }

  /**
   * The part so far as live thresholds read it once a second: the counts, checks and whole histograms
   * (overall, per tag set), without its seconds, marks, fates and errors, which no threshold reads. A
   * whole histogram is encoded only when read (a worker's post reads all; on the main thread a live
   * threshold reads the live one, liveHistogram, and encodes none). Both are read in the same turn as
   * the totals are made (a threshold's evaluation, a worker's post), so no later record is in them. The
   * marks are left out because a messaging soak's `accepted` set grows with the run: copied each
   * second, an hour at 200/s copied 720,000 indices a second.
   */
  totals(): RecorderPart {
    this.#applyWithdrawn();
    return withLiveHistogram(
      {
        counts: { ...this.#counts },
        commands: this.#commands,
        tags: [...this.#tags.values()].map((entry) =>
          withLiveHistogram(
            { tags: entry.tags, counts: { ...entry.counts }, commands: entry.commands },
            entry.histogram,
          ),
        ),
        seconds: [],
        checks: [...this.#checks.entries()].map(([name, entry]) => ({ name, ...entry })),
        errors: [],
        tallies: Object.fromEntries(this.#tallies),
        marks: {},
      },
      this.#histogram,
    );
  }

  #part(withSeconds: true): RecorderPart {
    this.#applyWithdrawn();
    return {
      counts: { ...this.#counts },
      commands: this.#commands,
      histogram: encodeHistogram(this.#histogram),
      tags: [...this.#tags.values()].map((entry) => ({
        tags: entry.tags,
        counts: { ...entry.counts },
        commands: entry.commands,
        histogram: encodeHistogram(entry.histogram),
      })),
      seconds: [...(withSeconds ? this.#seconds : new Map<number, SecondEntry>()).entries()].map(([second, entry]) => ({
        second,
        counts: { ...entry.counts },
        histogram: entry.histogram
          ? encodeHistogram(entry.histogram)
          : (entry.encoded ?? encodeHistogram(newSecondHistogram())),
      })),
      checks: [...this.#checks.entries()].map(([name, entry]) => ({ name, ...entry })),
      errors: [...this.#errors.entries()].map(([kind, entry]) => ({ kind, ...entry })),
      tallies: Object.fromEntries(this.#tallies),
      marks: Object.fromEntries([...this.#marks].map(([name, set]) => [name, [...set]])),
      // Not in the once-a-second totals: no threshold reads them, and a long run's would be cloned each second.
      ...(withSeconds && this.#fates !== undefined && { fates: this.#fates.part() }),
    };
  }

  /** Frees the histograms (packed arrays are plain memory, but a worker may run many scenarios). */
  destroy(): void {
    this.#histogram.destroy();
    for (const entry of this.#tags.values()) entry.histogram.destroy();
    for (const entry of this.#seconds.values()) entry.histogram?.destroy();
    const { overall, tags, seconds } = this.#withdrawn;
    for (const histogram of [overall, ...tags.values(), ...seconds.values()]) histogram?.destroy();
  }
}

/** An encoded per-second histogram's summary. */
function summarizeEncoded(encoded: string): LatencySummary {
  const histogram = decodeHistogram(encoded, newSecondHistogram);
  const summary = summarize(histogram);
  histogram.destroy();
  return summary;
}

const addCounts = (a: RequestCounts, b: RequestCounts): RequestCounts => ({
  sent: a.sent + b.sent,
  completed: a.completed + b.completed,
  failed: a.failed + b.failed,
  dropped: a.dropped + b.dropped,
});

/** The merged figures of every part: decode and add. */
export interface MergedParts {
  readonly counts: RequestCounts;
  readonly commands: number;
  readonly histogram: string;
  readonly tags: readonly TagMetrics[];
  readonly series: readonly SeriesPoint[];
  readonly checks: readonly CheckTotals[];
  readonly errors: readonly ErrorCount[];
  readonly tallies: Readonly<Record<string, number>>;
  /** Union of every part's marks, sorted. */
  readonly marks: Readonly<Record<string, readonly number[]>>;
  /** Every part's fates, when a part kept some. */
  readonly fates?: FatePart;
}

function mergedHistogram(encoded: readonly string[]): { encoded: string; histogram: Histogram } {
  const histogram = mergeEncoded(encoded);
  return { encoded: encodeHistogram(histogram), histogram };
}

export function mergeParts(parts: readonly RecorderPart[]): MergedParts {
  const counts = parts.reduce((sum, part) => addCounts(sum, part.counts), zero() as RequestCounts);
  const overall = mergedHistogram(parts.map((part) => part.histogram));
  overall.histogram.destroy();

  const tagGroups = new Map<string, RecorderPart['tags'][number][]>();
  for (const entry of parts.flatMap((part) => part.tags)) {
    const key = tagKey(entry.tags);
    tagGroups.set(key, [...(tagGroups.get(key) ?? []), entry]);
  }
  const tags: TagMetrics[] = [...tagGroups.values()].map((group) => {
    const merged = mergedHistogram(group.map((entry) => entry.histogram));
    const latencyMs = summarize(merged.histogram);
    merged.histogram.destroy();
    return {
      tags: group[0]?.tags ?? {},
      requests: group.reduce((sum, entry) => addCounts(sum, entry.counts), zero() as RequestCounts),
      commands: group.reduce((sum, entry) => sum + entry.commands, 0),
      latencyMs,
      histogram: merged.encoded,
    };
  });

  const secondGroups = new Map<number, RecorderPart['seconds'][number][]>();
  for (const entry of parts.flatMap((part) => part.seconds)) {
    secondGroups.set(entry.second, [...(secondGroups.get(entry.second) ?? []), entry]);
  }
  const series: SeriesPoint[] = [...secondGroups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([second, group]) => {
      const histogram = mergeEncoded(
        group.map((entry) => entry.histogram),
        newSecondHistogram,
      );
      const summary = summarize(histogram);
      histogram.destroy();
      const total = group.reduce((sum, entry) => addCounts(sum, entry.counts), zero() as RequestCounts);
      return { second, ...total, p50: summary.p50, p90: summary.p90, p99: summary.p99, max: summary.max };
    });

  const checks = new Map<string, { passes: number; fails: number }>();
  for (const check of parts.flatMap((part) => part.checks)) {
    const entry = checks.get(check.name) ?? { passes: 0, fails: 0 };
    checks.set(check.name, { passes: entry.passes + check.passes, fails: entry.fails + check.fails });
  }
  const errors = new Map<ErrorClass, { count: number; example: string }>();
  for (const error of parts.flatMap((part) => part.errors)) {
    const entry = errors.get(error.kind);
    errors.set(error.kind, { count: (entry?.count ?? 0) + error.count, example: entry?.example ?? error.example });
  }
  const tallies: Record<string, number> = {};
  for (const part of parts) {
    for (const [name, value] of Object.entries(part.tallies)) tallies[name] = (tallies[name] ?? 0) + value;
  }
  const markSets = new Map<string, Set<number>>();
  for (const part of parts) {
    for (const [name, indices] of Object.entries(part.marks ?? {})) {
      const set = markSets.get(name) ?? new Set<number>();
      for (const index of indices) set.add(index);
      markSets.set(name, set);
    }
  }
  const marks = Object.fromEntries([...markSets].map(([name, set]) => [name, [...set].sort((a, b) => a - b)]));
  return {
    counts,
    commands: parts.reduce((sum, part) => sum + part.commands, 0),
    histogram: overall.encoded,
    tags,
    series,
    checks: [...checks.entries()].map(([name, entry]) => ({ name, ...entry })),
    errors: [...errors.entries()].map(([kind, entry]) => ({ kind, ...entry })),
    tallies,
    marks,
    ...(parts.some((part) => part.fates !== undefined) && { fates: mergeFates(parts.map((part) => part.fates)) }),
  };
}
