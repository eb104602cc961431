import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readJsonFile, schemaProblem } from '../../src/shared/json-file.ts';
import { harnessErrorMessage } from '../support/harness-error.ts';

const configError = (run: () => unknown) => harnessErrorMessage('SVC_CONFIG', run);

describe('readJsonFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-config-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('parses a JSON file', async () => {
    const file = join(dir, 'ok.json');
    await writeFile(file, '{"a":[1]}');
    expect(readJsonFile(file, 'some file')).toEqual({ a: [1] });
  });

  test('a missing file, a folder and non-JSON are one line each, starting with the label', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{ nope\n}');
    expect(configError(() => readJsonFile(join(dir, 'none.json'), 'some file'))).toBe(
      `some file ${join(dir, 'none.json')}: no such file`,
    );
    expect(configError(() => readJsonFile(dir, 'some file'))).toBe(`some file ${dir}: is a directory`);
    const notJson = configError(() => readJsonFile(bad, 'some file'));
    expect(notJson).toMatch(/^some file .*bad\.json: not JSON \(.+\)$/);
    expect(notJson).not.toContain('\n');
  });
});

describe('schemaProblem', () => {
  const validate = new Ajv().compile({
    type: 'object',
    properties: { list: { type: 'array', items: { type: 'string' } } },
    required: ['list'],
  });

  test('names where the first problem is, dotted, or the top level', () => {
    expect(validate({ list: ['a', 1] })).toBe(false);
    expect(schemaProblem(validate.errors)).toBe('list.1 must be string');
    expect(validate({})).toBe(false);
    expect(schemaProblem(validate.errors)).toBe("top level must have required property 'list'");
    expect(schemaProblem(validate.errors, () => 'is not what was wanted')).toBe('top level is not what was wanted');
    expect(schemaProblem(undefined)).toBe('top level is invalid');
  });
});
