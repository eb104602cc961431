/**
 * Finding k6 (k6-binary.ts) without depending on the machine: versions read from `k6 version`'s
 * output and compared by number; K6_BINARY, PATH and the cache tried in that order with stand-in
 * executables (shell scripts printing a version); a K6_BINARY that is missing, does not run, prints
 * no version or is older than v1.0.0 refused with one SVC_K6_UNAVAILABLE line; nothing found and no
 * build asked for is one line naming every way to get k6. One test runs the real k6 the harness
 * builds into its cache, skipped when this machine has none.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  cachedExtendedK6Path,
  cachedK6Path,
  findK6,
  minimumK6,
  olderThan,
  parseK6Version,
  pinnedK6,
} from '../../../../src/engines/load/k6/k6-binary.ts';
import { cacheDir } from '../../../../src/shared/go-tool.ts';
import { harnessRejection, tempFolder } from './k6-fixtures.ts';

let dir: string;
beforeAll(async () => {
  dir = await tempFolder('binary');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** An executable shell script standing in for k6: `version` prints `output` and exits with `code`. */
async function fakeK6(path: string, output: string, code = 0): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, `#!/bin/sh\nprintf '%s\\n' '${output}'\nexit ${code}\n`);
  await chmod(path, 0o755);
  return path;
}

/** Folders that exist and hold nothing: a PATH and a cache where no k6 is. */
async function emptyFolders(label: string): Promise<{ path: string; cache: string }> {
  const path = join(dir, label, 'bin');
  const cache = join(dir, label, 'cache');
  await mkdir(path, { recursive: true });
  await mkdir(cache, { recursive: true });
  return { path, cache };
}

describe('parseK6Version', () => {
  test.each([
    ['k6 v2.2.0 (go1.26.8, linux/amd64)', '2.2.0'],
    ['k6 v0.57.0 (go1.23.6, darwin/arm64)', '0.57.0'],
    // An xk6 build lists its extensions after the version line.
    ['k6 v1.0.0 (go1.24.1, linux/amd64)\nExtensions:\n  github.com/grafana/xk6-sql v1.0.0, k6/x/sql [js]', '1.0.0'],
  ])('%j → %s', (output, version) => {
    expect(parseK6Version(output)).toBe(version);
  });

  test.each([
    '',
    'v2.2.0',
    'k6 version 2',
    'k6 v2.2 (go1.26.8)',
    // Another program's version: no word boundary before "k6".
    'xk6 v1.2.3',
    'sh: 1: k6: not found',
  ])('%j → undefined', (output) => {
    expect(parseK6Version(output)).toBeUndefined();
  });
});

describe('olderThan', () => {
  test.each([
    ['0.50.0', '1.0.0', true],
    ['0.57.1', '1.0.0', true],
    ['1.0.0', '1.0.0', false],
    ['2.2.0', '1.0.0', false],
    // By number, not by text: 1.10 is after 1.9.
    ['1.9.0', '1.10.0', true],
    ['1.10.0', '1.9.0', false],
    ['1.0.1', '1.0.0', false],
    // A missing part counts as 0.
    ['1.0', '1.0.1', true],
  ])('%s older than %s: %s', (a, b, older) => {
    expect(olderThan(a, b)).toBe(older);
  });
});

describe('cache paths', () => {
  test('SVC_HARNESS_CACHE, else XDG_CACHE_HOME/svc-harness, else ~/.cache/svc-harness', () => {
    expect(cacheDir({ SVC_HARNESS_CACHE: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(cacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/svc-harness');
    expect(cacheDir({})).toBe(join(homedir(), '.cache', 'svc-harness'));
    expect(cachedK6Path({ SVC_HARNESS_CACHE: '/c' })).toBe(`/c/k6/v${pinnedK6}/k6`);
  });
});

describe('findK6', () => {
  test('K6_BINARY naming nothing: one SVC_K6_UNAVAILABLE line naming it', async () => {
    const missing = join(dir, 'no-such-k6');
    const message = await harnessRejection('SVC_K6_UNAVAILABLE', findK6({ env: { K6_BINARY: missing } }));
    expect(message).toContain('K6_BINARY');
    expect(message).toContain(missing);
  });

  test('K6_BINARY older than v1.0.0: refused, the message names the version needed', async () => {
    const old = await fakeK6(join(dir, 'old', 'k6'), 'k6 v0.50.0 (go1.21.6, linux/amd64)');
    const message = await harnessRejection('SVC_K6_UNAVAILABLE', findK6({ env: { K6_BINARY: old } }));
    expect(minimumK6).toBe('1.0.0');
    expect(message).toContain('v0.50.0');
    expect(message).toContain('v1.0.0');
  });

  test('K6_BINARY that prints no version, or fails: refused, one line each', async () => {
    const quiet = await fakeK6(join(dir, 'quiet', 'k6'), 'hello');
    expect(await harnessRejection('SVC_K6_UNAVAILABLE', findK6({ env: { K6_BINARY: quiet } }))).toContain(
      'printed no version',
    );
    const broken = await fakeK6(join(dir, 'broken', 'k6'), 'panic: oh no', 2);
    expect(await harnessRejection('SVC_K6_UNAVAILABLE', findK6({ env: { K6_BINARY: broken } }))).toContain(
      'does not run',
    );
  });

  test('K6_BINARY first, then PATH, then the cache; each found with its version', async () => {
    const empty = await emptyFolders('order');
    const fromEnv = await fakeK6(join(dir, 'order', 'env', 'k6'), 'k6 v1.0.0 (go1.24.1, linux/amd64)');
    const fromPath = await fakeK6(join(dir, 'order', 'path', 'k6'), 'k6 v1.3.0 (go1.25.0, linux/amd64)');
    const cache = join(dir, 'order', 'filled-cache');
    const cached = await fakeK6(cachedK6Path({ SVC_HARNESS_CACHE: cache }), `k6 v${pinnedK6} (go1.26.8, linux/amd64)`);
    const pathDir = join(fromPath, '..');

    const env = { K6_BINARY: fromEnv, PATH: pathDir, SVC_HARNESS_CACHE: cache };
    expect(await findK6({ env, build: false })).toEqual({
      path: fromEnv,
      version: '1.0.0',
      source: 'K6_BINARY',
      boundedReads: false,
    });
    const { K6_BINARY: _unset, ...withoutBinary } = env;
    expect(await findK6({ env: withoutBinary, build: false })).toEqual({
      path: fromPath,
      version: '1.3.0',
      source: 'PATH',
      boundedReads: false,
    });
    // Only a stock build in the cache (from before the extension), and no build asked for: that one.
    expect(await findK6({ env: { PATH: empty.path, SVC_HARNESS_CACHE: cache }, build: false })).toEqual({
      path: cached,
      version: pinnedK6,
      source: 'cache',
      boundedReads: false,
    });
    // The build with the extension, beside it: preferred, and its `k6 version` lists the module.
    const extended = await fakeK6(
      cachedExtendedK6Path({ SVC_HARNESS_CACHE: cache }),
      `k6 v${pinnedK6} (go1.26.8, linux/amd64)\nExtensions:\n  svcharness/toolbuild/answercap , k6/x/svc-harness [js]`,
    );
    expect(extended).not.toBe(cached);
    expect(await findK6({ env: { PATH: empty.path, SVC_HARNESS_CACHE: cache }, build: false })).toEqual({
      path: extended,
      version: pinnedK6,
      source: 'cache',
      boundedReads: true,
    });
  });

  test('nothing on K6_BINARY, PATH or in the cache, no build: one line naming K6_BINARY and PATH', async () => {
    const empty = await emptyFolders('nothing');
    const message = await harnessRejection(
      'SVC_K6_UNAVAILABLE',
      findK6({ env: { PATH: empty.path, SVC_HARNESS_CACHE: empty.cache }, build: false }),
    );
    expect(message).toContain('K6_BINARY');
    expect(message).toContain('PATH');
    expect(message).toContain(`v${pinnedK6}`);
  });

  // The binary `findK6` builds once per machine; absent on a fresh machine, where building takes minutes.
  const realK6 = join(homedir(), '.cache', 'svc-harness', 'k6', `v${pinnedK6}`, 'k6');
  test.skipIf(!existsSync(realK6))(
    `the real k6 v${pinnedK6} from the cache, through K6_BINARY (skipped when ${realK6} is absent)`,
    async () => {
      expect(await findK6({ env: { K6_BINARY: realK6 }, build: false })).toEqual({
        path: realK6,
        version: pinnedK6,
        source: 'K6_BINARY',
        boundedReads: false,
      });
    },
  );

  // The build with the extension (`svc-harness k6 install` makes it); absent on a fresh machine.
  const realExtended = cachedExtendedK6Path({});
  test.skipIf(!existsSync(realExtended))(
    `the real k6 v${pinnedK6} with the harness's extension, through K6_BINARY (skipped when ${realExtended} is absent)`,
    async () => {
      expect(await findK6({ env: { K6_BINARY: realExtended }, build: false })).toEqual({
        path: realExtended,
        version: pinnedK6,
        source: 'K6_BINARY',
        boundedReads: true,
      });
    },
  );
});
