/**
 * The live outputs' file (src/reporters/outputs/line-file.ts) on real files: lines in order, each
 * batch written at once; a destination that cannot be opened (a folder) throws at open; a full disk
 * (/dev/full answers every write with ENOSPC) and a queue past its bound drop lines and count them;
 * closing never waits past its limit.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openLineFile } from '../../src/reporters/outputs/line-file.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-line-file-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('line file', () => {
  test('writes every line in order, its folder made, each batch readable as soon as it was written', async () => {
    const path = join(dir, 'deep', 'er', 'out.ndjson');
    const file = openLineFile(path);
    file.write(['{"a":1}', '{"a":2}']);
    file.write(['{"a":3}']);
    // Written as it goes: without closing, once the queue is empty, the lines are in the file.
    await expect.poll(async () => (await readFile(path, 'utf8')).split('\n').length, { timeout: 5000 }).toBe(4);
    file.write(['{"a":4}']);
    const totals = await file.close(5000);
    expect(totals).toEqual({ written: 4, dropped: 0 });
    expect(await readFile(path, 'utf8')).toBe('{"a":1}\n{"a":2}\n{"a":3}\n{"a":4}\n');
    // After closing, lines are ignored, not written into a closed descriptor.
    file.write(['{"a":5}']);
    expect(await readFile(path, 'utf8')).not.toContain('"a":5');
  });

  test('a folder cannot be opened: the system error, at once', async () => {
    const folder = join(dir, 'a-folder');
    await mkdir(folder);
    expect(() => openLineFile(folder)).toThrow(/EISDIR/);
  });

  test.runIf(existsSync('/dev/full'))('a full disk drops the lines of each failed write and counts them', async () => {
    const file = openLineFile('/dev/full');
    file.write(['one', 'two']);
    file.write(['three']);
    const totals = await file.close(5000);
    expect(totals.written).toBe(0);
    expect(totals.dropped).toBe(3);
    expect(totals.error).toMatch(/ENOSPC/);
  });

  test('lines past the bound of what is queued are dropped and counted, never held', async () => {
    const path = join(dir, 'bounded.ndjson');
    const file = openLineFile(path, { maxPendingBytes: 100 });
    const line = 'x'.repeat(39);
    // The first batch goes to the disk at once; then 100 bytes hold two more lines of 40, and the rest drop.
    file.write([line]);
    file.write([line, line, line, line]);
    const totals = await file.close(5000);
    expect(totals).toEqual({ written: 3, dropped: 2 });
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(3);
  });
});
