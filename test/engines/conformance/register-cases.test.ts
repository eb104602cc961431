import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveCaseSetup } from '../../../src/engines/conformance/register-cases.ts';

describe('resolveCaseSetup', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-setup-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('without a target every case is skipped with a reason', () => {
    expect(resolveCaseSetup('kv', {})).toEqual({ skipReason: expect.stringContaining('No target') });
  });

  test('the SVC_* environment gives the target', () => {
    const setup = resolveCaseSetup('kv', { SVC_KV_URL: 'http://127.0.0.1:9', SVC_KV_TOKEN: 't' });
    expect(setup.skipReason).toBeUndefined();
    expect(setup.target?.kv?.url).toBe('http://127.0.0.1:9');
  });

  test('SVC_TARGET_FILE wins over the environment', async () => {
    const file = join(dir, 'target.json');
    await writeFile(file, JSON.stringify({ name: 'from-file', kv: { url: 'http://127.0.0.1:8', token: 'x' } }));
    const setup = resolveCaseSetup('kv', {
      SVC_TARGET_FILE: file,
      SVC_KV_URL: 'http://127.0.0.1:9',
      SVC_KV_TOKEN: 't',
    });
    expect(setup.target?.name).toBe('from-file');
  });

  test('a target without the area skips with a reason naming the area', async () => {
    const setup = resolveCaseSetup('messaging', { SVC_KV_URL: 'http://127.0.0.1:9', SVC_KV_TOKEN: 't' });
    expect(setup.skipReason).toBe('The target "environment" has no messaging area.');
  });

  test('a malformed target file is one SVC_CONFIG error', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, '{"kv": 1}');
    expect(() => resolveCaseSetup('kv', { SVC_TARGET_FILE: file })).toThrow(
      /target file .*bad\.json: kv must be object/,
    );
  });
});
