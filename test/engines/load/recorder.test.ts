/**
 * The recorder and the merge of its parts: two parts (as workers post them, through JSON) merged
 * give what one recorder fed every sample gives: counts, commands, percentiles from the merged
 * histogram, the per-second series, per-tag metrics, checks, errors and tallies. And the figures
 * themselves are right: counts and seconds computed from the samples, percentiles within the HDR
 * histogram's precision of the samples' own.
 */
import { describe, expect, test } from 'vitest';
import { type MergedParts, mergeParts, Recorder, type RecorderPart } from '../../../src/engines/load/recorder.ts';
import { seededRandom } from '../../../src/protocol/scenario.ts';
import { decodeHistogram, summarize } from '../../../src/results/histogram.ts';
import type { ErrorClass } from '../../../src/results/load-run.ts';

const origin = 5_000;

type Sample =
  | {
      readonly type: 'completed';
      readonly tags: Record<string, string>;
      readonly due: number;
      readonly at: number;
      readonly latencyMs: number;
      readonly commands: number;
    }
  | {
      readonly type: 'failed';
      readonly tags: Record<string, string>;
      readonly due: number;
      readonly at: number;
      readonly latencyMs: number;
      readonly kind: ErrorClass;
      readonly example: string;
    }
  | { readonly type: 'dropped'; readonly tags: Record<string, string>; readonly due: number };

interface Extra {
  readonly checks: readonly { name: string; ok: boolean }[];
  readonly tallies: readonly { name: string; value: number }[];
}

const kindsOfFailure: readonly ErrorClass[] = ['refused', 'reset', 'timeout', 'status'];

/** A reproducible mix of samples over about 4 s, with tags from two batch sizes and two value sizes. */
function samples(count: number): { samples: Sample[]; extra: Extra[] } {
  const random = seededRandom(7);
  const list: Sample[] = [];
  const extra: Extra[] = [];
  for (let index = 0; index < count; index++) {
    const due = origin + index * (4000 / count);
    const batch = random() < 0.5 ? '1' : '100';
    const tags = { batch, value: random() < 0.5 ? '16' : '1024' };
    const roll = random();
    // Log-uniform latencies from 0.1 ms to 2 s, so percentiles span several decades.
    const latencyMs = 0.1 * 20_000 ** random();
    if (roll < 0.05) list.push({ type: 'dropped', tags, due });
    else if (roll < 0.2) {
      const kind = kindsOfFailure[index % kindsOfFailure.length] ?? 'other';
      list.push({ type: 'failed', tags, due, at: due + latencyMs, latencyMs, kind, example: `${kind} #${index}` });
    } else {
      list.push({ type: 'completed', tags, due, at: due + latencyMs, latencyMs, commands: Number(batch) });
    }
    extra.push({
      checks: [
        { name: 'status is 200', ok: roll >= 0.2 },
        ...(index % 3 === 0 ? [{ name: 'one result per command', ok: random() < 0.9 }] : []),
      ],
      tallies: index % 4 === 0 ? [{ name: `committed:${index % 3}`, value: 1 + (index % 5) }] : [],
    });
  }
  return { samples: list, extra };
}

function feed(recorder: Recorder, sample: Sample, extra: Extra | undefined): void {
  if (sample.type === 'dropped') recorder.dropped(sample.tags, sample.due);
  else {
    recorder.sent(sample.tags, sample.due);
    if (sample.type === 'completed') recorder.completed(sample.tags, sample.commands, sample.latencyMs, sample.at);
    else recorder.failed(sample.tags, sample.kind, sample.example, sample.at);
  }
  for (const check of extra?.checks ?? []) recorder.check(check.name, check.ok);
  for (const tally of extra?.tallies ?? []) recorder.tally(tally.name, tally.value);
}

/** A part as a worker posts it: plain data through a structured clone (here JSON, stricter still). */
function partOf(recorder: Recorder): RecorderPart {
  const part = JSON.parse(JSON.stringify(recorder.part())) as RecorderPart;
  recorder.destroy();
  return part;
}

const summaryOf = (encoded: string) => {
  const histogram = decodeHistogram(encoded);
  const summary = summarize(histogram);
  histogram.destroy();
  return summary;
};

const byKey = <T>(items: readonly T[], key: (item: T) => string) =>
  [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/** The comparable content of a merge: histograms as their summaries, lists in a fixed order. */
function comparable(merged: MergedParts) {
  return {
    counts: merged.counts,
    commands: merged.commands,
    latency: summaryOf(merged.histogram),
    tags: byKey(merged.tags, (entry) => JSON.stringify(entry.tags)).map((entry) => ({
      ...entry,
      histogram: summaryOf(entry.histogram),
    })),
    series: merged.series,
    checks: byKey(merged.checks, (check) => check.name),
    errors: byKey(merged.errors, (error) => error.kind).map(({ kind, count }) => ({ kind, count })),
    tallies: merged.tallies,
  };
}

/** The sample's value at percentile `p` as HDR counts it: the ceil(p% · n)-th smallest. */
function exactPercentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? 0;
}

describe('Recorder + mergeParts', () => {
  const { samples: all, extra } = samples(2000);

  test('two parts merged equal one recorder fed the same samples', () => {
    const single = new Recorder(origin);
    const a = new Recorder(origin);
    const b = new Recorder(origin);
    all.forEach((sample, index) => {
      feed(single, sample, extra[index]);
      // As workers split a schedule: every other arrival.
      feed(index % 2 === 0 ? a : b, sample, extra[index]);
    });
    const one = mergeParts([partOf(single)]);
    const partA = partOf(a);
    const partB = partOf(b);
    const two = mergeParts([partA, partB]);
    expect(comparable(two)).toEqual(comparable(one));
    // Order of the parts does not change the figures.
    expect(comparable(mergeParts([partB, partA]))).toEqual(comparable(one));
    // An error's example is the first part's that has one.
    for (const error of two.errors) {
      const first =
        partA.errors.find((item) => item.kind === error.kind) ?? partB.errors.find((item) => item.kind === error.kind);
      expect(error.example).toBe(first?.example);
    }
  });

  test('the figures are the samples’ own: counts, commands, seconds, tags, checks, errors, tallies', () => {
    const a = new Recorder(origin);
    const b = new Recorder(origin);
    all.forEach((sample, index) => {
      feed(index < 700 ? a : b, sample, extra[index]);
    });
    const merged = mergeParts([partOf(a), partOf(b)]);

    const answered = all.filter((sample) => sample.type !== 'dropped');
    const completed = all.filter((sample) => sample.type === 'completed');
    const failed = all.filter((sample) => sample.type === 'failed');
    expect(merged.counts).toEqual({
      sent: answered.length,
      completed: completed.length,
      failed: failed.length,
      dropped: all.length - answered.length,
    });
    expect(merged.commands).toBe(completed.reduce((sum, sample) => sum + sample.commands, 0));

    // Sent and dropped count in the second they were due, completed and failed in the one they ended.
    const secondOf = (at: number) => Math.floor((at - origin) / 1000);
    const seconds = [
      ...new Set(all.flatMap((sample) => (sample.type === 'dropped' ? [sample.due] : [sample.due, sample.at]))),
    ].map(secondOf);
    expect(merged.series.map((point) => point.second)).toEqual([...new Set(seconds)].sort((x, y) => x - y));
    for (const point of merged.series) {
      const inSecond = (at: number) => secondOf(at) === point.second;
      expect(point).toMatchObject({
        sent: answered.filter((sample) => inSecond(sample.due)).length,
        dropped: all.filter((sample) => sample.type === 'dropped' && inSecond(sample.due)).length,
        completed: completed.filter((sample) => inSecond(sample.at)).length,
        failed: failed.filter((sample) => inSecond(sample.at)).length,
      });
    }

    expect(merged.tags).toHaveLength(4);
    for (const entry of merged.tags) {
      const mine = all.filter(
        (sample) => sample.tags.batch === entry.tags.batch && sample.tags.value === entry.tags.value,
      );
      expect(entry.requests.sent).toBe(mine.filter((sample) => sample.type !== 'dropped').length);
      expect(entry.requests.dropped).toBe(mine.filter((sample) => sample.type === 'dropped').length);
      expect(entry.latencyMs.count).toBe(mine.filter((sample) => sample.type === 'completed').length);
      expect(entry.commands).toBe(
        mine.reduce((sum, sample) => sum + (sample.type === 'completed' ? sample.commands : 0), 0),
      );
    }

    const checkNames = [...new Set(extra.flatMap((item) => item.checks.map((check) => check.name)))];
    expect(byKey(merged.checks, (check) => check.name)).toEqual(
      checkNames.sort().map((name) => {
        const outcomes = extra.flatMap((item) => item.checks.filter((check) => check.name === name));
        return {
          name,
          passes: outcomes.filter((check) => check.ok).length,
          fails: outcomes.filter((check) => !check.ok).length,
        };
      }),
    );

    expect(byKey(merged.errors, (error) => error.kind).map(({ kind, count }) => ({ kind, count }))).toEqual(
      [...kindsOfFailure].sort().map((kind) => ({
        kind,
        count: failed.filter((sample) => sample.type === 'failed' && sample.kind === kind).length,
      })),
    );

    const tallies: Record<string, number> = {};
    for (const tally of extra.flatMap((item) => item.tallies))
      tallies[tally.name] = (tallies[tally.name] ?? 0) + tally.value;
    expect(merged.tallies).toEqual(tallies);
  });

  test('percentiles from the merged histogram are the samples’ own within the HDR precision', () => {
    const a = new Recorder(origin);
    const b = new Recorder(origin);
    all.forEach((sample, index) => {
      feed(index % 3 === 0 ? a : b, sample, extra[index]);
    });
    const merged = mergeParts([partOf(a), partOf(b)]);
    // Latency is of completed answers only: a failure is counted, never measured.
    const latencies = all
      .flatMap((sample) => (sample.type === 'completed' ? [sample.latencyMs] : []))
      .sort((x, y) => x - y);
    const summary = summaryOf(merged.histogram);
    expect(summary.count).toBe(latencies.length);
    // 3 significant digits: within 0.1 % (plus the microsecond the samples are rounded to).
    const near = (value: number, expected: number) =>
      expect(Math.abs(value - expected), `${value} vs ${expected}`).toBeLessThanOrEqual(expected * 0.001 + 0.002);
    near(summary.min, latencies[0] ?? 0);
    near(summary.max, latencies.at(-1) ?? 0);
    near(summary.p50, exactPercentile(latencies, 50));
    near(summary.p90, exactPercentile(latencies, 90));
    near(summary.p99, exactPercentile(latencies, 99));
    near(summary.p999, exactPercentile(latencies, 99.9));
    near(summary.mean, latencies.reduce((sum, value) => sum + value, 0) / latencies.length);

    // A second's percentiles come from the requests that ended in it.
    for (const point of merged.series) {
      const ended = all
        .flatMap((sample) =>
          sample.type === 'completed' && Math.floor((sample.at - origin) / 1000) === point.second
            ? [sample.latencyMs]
            : [],
        )
        .sort((x, y) => x - y);
      if (ended.length === 0) continue;
      // Per-second histograms keep 2 significant digits: within 1 %.
      const nearSecond = (value: number, expected: number) =>
        expect(Math.abs(value - expected), `${value} vs ${expected}`).toBeLessThanOrEqual(expected * 0.01 + 0.002);
      nearSecond(point.p50, exactPercentile(ended, 50));
      nearSecond(point.p99, exactPercentile(ended, 99));
      nearSecond(point.max, ended.at(-1) ?? 0);
    }
  });

  test('requests cut short count as failed, class cut-short, without tags or a second', () => {
    const recorder = new Recorder(origin);
    recorder.sent({ op: 'GET' }, origin + 10);
    recorder.sent({ op: 'GET' }, origin + 20);
    recorder.completed({ op: 'GET' }, 1, 5, origin + 15);
    recorder.cutShort(1, 'still in flight');
    recorder.cutShort(0, 'nothing');
    const merged = mergeParts([partOf(recorder)]);
    expect(merged.counts).toEqual({ sent: 2, completed: 1, failed: 1, dropped: 0 });
    expect(merged.errors).toEqual([{ kind: 'cut-short', count: 1, example: 'still in flight' }]);
    expect(merged.tags[0]?.requests).toEqual({ sent: 2, completed: 1, failed: 0, dropped: 0 });
  });

  test('no parts: zero counts, an empty histogram, no series', () => {
    const merged = mergeParts([]);
    expect(merged.counts).toEqual({ sent: 0, completed: 0, failed: 0, dropped: 0 });
    expect(merged.commands).toBe(0);
    expect(summaryOf(merged.histogram).count).toBe(0);
    expect(merged.series).toEqual([]);
    expect(merged.tags).toEqual([]);
    expect(merged.checks).toEqual([]);
    expect(merged.errors).toEqual([]);
    expect(merged.tallies).toEqual({});
  });

  test('lastSecond: the previous whole second’s answered requests and p99', () => {
    const recorder = new Recorder(origin);
    for (let index = 0; index < 10; index++) {
      recorder.sent({}, origin + 1000 + index);
      if (index < 8) recorder.completed({}, 1, 10 + index, origin + 1100 + index);
      else recorder.failed({}, 'timeout', 'late', origin + 1200 + index);
    }
    expect(recorder.lastSecond(origin + 2500)).toMatchObject({ rate: 10 });
    // The completed answers' p99 (10..17 ms; the two timeouts are not latencies); 2 significant digits.
    expect(Math.abs(recorder.lastSecond(origin + 2500).p99Ms - 17)).toBeLessThanOrEqual(0.2);
    expect(recorder.lastSecond(origin + 3500)).toEqual({ rate: 0, p99Ms: 0 });
    expect(recorder.failures).toBe(2);
    recorder.destroy();
  });

  test('seconds well past are closed (encoded) and a late record reopens one: the series is unchanged', () => {
    const recorder = new Recorder(origin);
    // Ten seconds of answers, 5 ms in second s's first half and 50 ms in its second half.
    for (let second = 0; second < 10; second++) {
      for (let index = 0; index < 100; index++) {
        const at = origin + second * 1000 + index * 10;
        recorder.sent({}, at);
        recorder.completed({}, 1, index < 50 ? 5 : 50, at);
      }
    }
    // A late answer in second 1, long closed by now.
    recorder.sent({}, origin + 1500);
    recorder.completed({}, 1, 900, origin + 1500);
    const merged = mergeParts([partOf(recorder)]);
    recorder.destroy();
    expect(merged.series).toHaveLength(10);
    for (const point of merged.series) {
      expect(point.completed, `second ${point.second}`).toBe(point.second === 1 ? 101 : 100);
      // Second 1 has 101 answers, so its median is the 51st: 50 ms.
      const median = point.second === 1 ? 50 : 5;
      expect(Math.abs(point.p50 - median), `second ${point.second}`).toBeLessThanOrEqual(median * 0.01);
      expect(Math.abs(point.max - (point.second === 1 ? 900 : 50)), `second ${point.second}`).toBeLessThanOrEqual(
        point.second === 1 ? 9 : 0.5,
      );
    }
  });

  test("an answer regraded as garbage after a second's edge leaves the second it was counted complete in", () => {
    // k6 times the request's sample at its answer's end (second 0) and the script's garbage sample after
    // it has weighed the answer (second 1): the completion and its latency leave second 0, never second 1.
    const recorder = new Recorder(origin);
    const tags = { op: 'GET' };
    recorder.sent(tags, origin + 100);
    recorder.completed(tags, 1, 40, origin + 990);
    recorder.sent(tags, origin + 1200);
    recorder.completed(tags, 1, 7, origin + 1300);
    recorder.regradeAsGarbage(tags, origin + 1004, true, 1, 'an answer longer than 10 bytes');
    recorder.withdrawLatency(tags, origin + 1004, 40);
    recorder.regradeAsGarbage(tags, origin + 1400, true, 1, 'an answer longer than 10 bytes');
    recorder.withdrawLatency(tags, origin + 1400, 7);
    const merged = mergeParts([partOf(recorder)]);
    recorder.destroy();
    expect(merged.series.map((point) => [point.second, point.completed, point.failed])).toEqual([
      [0, 0, 1],
      [1, 0, 1],
    ]);
    expect(merged.counts.completed).toBe(0);
    expect(merged.counts.failed).toBe(2);
  });
});
