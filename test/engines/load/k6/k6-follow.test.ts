/**
 * Following k6's output files while they are written (k6-follow.ts, and readK6Outputs with `live`):
 * a file not there yet is waited for; what is appended is read as it comes, plain or gzipped, and its
 * live figures grow with it; once stopped, the rest is read to the end and the result is the one a
 * reading of the finished file gives. A file that never came is one bad-file line.
 */
import { createWriteStream } from 'node:fs';
import { appendFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FollowStop, followFile } from '../../../../src/engines/load/k6/k6-follow.ts';
import { K6LiveRead, readK6Outputs } from '../../../../src/engines/load/k6/k6-output.ts';
import { mergeParts } from '../../../../src/engines/load/recorder.ts';
import { checkPoint, k6Lines, requestPoints, t0, tempFolder } from './k6-fixtures.ts';

let dir: string;
beforeAll(async () => {
  dir = await tempFolder('follow');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two seconds of 10 requests a second, in time order, and a check per request. */
const lines = k6Lines(
  Array.from({ length: 20 }, (_, index) => [
    ...requestPoints({ scenario: 'load', at: t0 + index * 100 + 50, latencyMs: 2, tags: { op: 'GET' } }),
    checkPoint('load', 'status is 200', true, t0 + index * 100 + 51),
  ]).flat(),
);
// Past the first second: a followed file starts its recorder once its samples span one.
const half = Math.floor((lines.length * 2) / 3);

describe('followFile', () => {
  test('waits for a file not there yet, reads what is appended, and ends once stopped', async () => {
    const file = join(dir, 'grows.txt');
    const stop = new FollowStop();
    const chunks: string[] = [];
    const stream = followFile(file, stop);
    const read = (async () => {
      for await (const chunk of stream) chunks.push(String(chunk));
    })();
    await sleep(300);
    await writeFile(file, 'one\n');
    await sleep(600);
    expect(chunks.join('')).toBe('one\n');
    await appendFile(file, 'two\n');
    stop.stop();
    await read;
    expect(chunks.join('')).toBe('one\ntwo\n');
  });

  test('a file that never came, once stopped, is an error of the stream', async () => {
    const stop = new FollowStop();
    const stream = followFile(join(dir, 'never.txt'), stop);
    stop.stop();
    await expect(
      (async () => {
        for await (const _ of stream);
      })(),
    ).rejects.toThrow(/ENOENT/);
  });
});

describe('readK6Outputs with live', () => {
  for (const gzipped of [false, true]) {
    test(`${gzipped ? 'gzipped: ' : ''}the live figures grow as the file does; the result is the finished file's`, async () => {
      const file = join(dir, `live${gzipped ? '.json.gz' : '.json'}`);
      const live = new K6LiveRead();
      let write: (text: string) => Promise<void>;
      let end: () => Promise<void>;
      if (gzipped) {
        const gzip = createGzip();
        const out = createWriteStream(file);
        gzip.pipe(out);
        write = (text) => new Promise((resolve) => gzip.write(text, () => gzip.flush(() => resolve())));
        end = () =>
          new Promise((resolve) => {
            out.on('close', () => resolve());
            gzip.end();
          });
      } else {
        await writeFile(file, '');
        write = (text) => appendFile(file, text);
        end = async () => {};
      }
      const reading = readK6Outputs([file], { live });
      await write(`${lines.slice(0, half).join('\n')}\n`);
      await sleep(700);
      const early = live.progress('load');
      expect(early).toBeDefined();
      const earlyEnded = early?.parts.reduce((sum, part) => sum + part.requests.completed, 0) ?? 0;
      expect(earlyEnded).toBeGreaterThan(0);
      // The first sample: the first request sent (its answer came 2 ms later).
      expect(early?.firstMs).toBe(t0 + 48);
      await write(`${lines.slice(half).join('\n')}\n`);
      await end();
      live.stop();
      const output = await reading;
      const merged = mergeParts(output.scenarios.get('load')?.parts ?? []);
      expect(merged.counts).toEqual({ sent: 20, completed: 20, failed: 0, dropped: 0 });
      expect(earlyEnded).toBeLessThan(20);
      const whole = join(dir, 'whole.json');
      await writeFile(whole, `${lines.join('\n')}\n`);
      const plain = mergeParts((await readK6Outputs([whole])).scenarios.get('load')?.parts ?? []);
      expect(merged.counts).toEqual(plain.counts);
      expect(merged.checks).toEqual(plain.checks);
      expect(merged.series.map((item) => item.completed)).toEqual(plain.series.map((item) => item.completed));
    });
  }

  test('a file k6 never wrote: one bad-file line once stopped, nothing else lost', async () => {
    const live = new K6LiveRead();
    const bad: string[] = [];
    const reading = readK6Outputs([join(dir, 'absent.json')], { live, onBadFile: (line) => bad.push(line) });
    await sleep(300);
    live.stop();
    const output = await reading;
    expect(output.scenarios.size).toBe(0);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/absent\.json: .*ENOENT/);
  });
});
