import { describe, expect, test } from 'vitest';
import {
  checkClassToken,
  checkDiscarded,
  checkError,
  checkItems,
  checkNotSuccess,
  checkResult,
  checkResultShape,
  checkUnauthorized,
  checkUtf8Body,
} from '../../../conformance/support/kv-checks.ts';
import type { HttpResponse } from '../../../src/http/http-client.ts';
import { CheckFailure } from '../../../src/suite-kit/check-failure.ts';

/** A response as the HTTP client returns it (data, not a stand-in for a server). */
function response(status: number, body: unknown, type = 'application/json'): HttpResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, headers: { 'content-type': type }, body: Buffer.from(text), elapsedMs: 1 };
}

function failureOf(fn: () => unknown): CheckFailure {
  try {
    fn();
  } catch (error) {
    if (error instanceof CheckFailure) return error;
    throw error;
  }
  throw new Error('the check did not fail');
}

describe('key-value checks', () => {
  test('checkResult wants status 200 and exactly {result}', () => {
    checkResult('R', response(200, { result: ['a', null] }), ['a', null]);
    expect(failureOf(() => checkResult('R', response(201, { result: 1 }), 1)).rule).toBe('R');
    expect(failureOf(() => checkResult('R', response(200, { data: 1 }), 1)).expected).toContain('single field result');
    expect(failureOf(() => checkResult('R', response(200, { result: 1, extra: 2 }), 1)).rule).toBe('R');
    expect(failureOf(() => checkResult('R', response(200, { result: '1' }), 1)).received).toBe('result "1"');
  });

  test('checkError wants the status (its rule), exactly {error} and a class token (theirs)', () => {
    expect(checkError('E', response(400, { error: 'ERR wrong' }), { token: 'ERR' })).toBe('ERR wrong');
    expect(failureOf(() => checkError('E', response(400, { error: 'wrong' }))).rule).toBe('B.errors.class-token');
    expect(failureOf(() => checkError('E', response(400, { error: 'WRONGTYPE x' }), { token: 'ERR' })).rule).toBe(
      'B.errors.class-token',
    );
    expect(failureOf(() => checkError('E', response(200, { error: 'ERR x' }))).expected).toBe('status 400');
    expect(failureOf(() => checkError('E', response(200, { error: 'ERR x' }))).rule).toBe('E');
    expect(failureOf(() => checkError('E', response(400, { error: 'ERR x', code: 1 }))).rule).toBe(
      'B.response.error-shape',
    );
  });

  test("class tokens are Redis's error classes at the start", () => {
    expect(checkClassToken('C', 'NOPERM no')).toBe('NOPERM');
    expect(checkClassToken('C', 'EXECABORT')).toBe('EXECABORT');
    expect(checkClassToken('C', 'ERR: punctuation after the class')).toBe('ERR');
    expect(() => checkClassToken('C', 'Command not available')).toThrow(CheckFailure);
    // An upper-case word that is no Redis class is left open by the spec: an observation.
    expect(failureOf(() => checkClassToken('C', 'SELECT is not allowed')).rule).toBe('B.observe.error-class');
    const notes: string[] = [];
    expect(checkClassToken('C', 'SELECT is not allowed', undefined, undefined, (note) => notes.push(note))).toBe(
      'SELECT',
    );
    expect(notes).toEqual([expect.stringContaining('not one of Redis')]);
  });

  test('result shapes: null, integer, string, flat array of strings and nulls', () => {
    for (const value of [null, 1, 'x', ['a', null], []]) checkResultShape('S', value);
    for (const value of [1.5, true, { a: 1 }, [1], [['a']]])
      expect(() => checkResultShape('S', value)).toThrow(CheckFailure);
  });

  test('items, discards and refusals', () => {
    checkItems('I', response(200, [{ result: 'OK' }, { error: 'ERR x' }]), [
      { result: 'OK' },
      { error: true, token: 'ERR' },
    ]);
    expect(
      failureOf(() => checkItems('I', response(200, [{ result: 'OK' }]), [{ result: 'OK' }, { result: 1 }])).rule,
    ).toBe('I');
    checkDiscarded('D', response(400, { error: 'EXECABORT discarded' }));
    expect(failureOf(() => checkDiscarded('D', response(200, [{ result: 'OK' }, { error: 'ERR x' }]))).rule).toBe('D');
    checkNotSuccess('N', response(400, { error: 'NOPERM' }));
    checkNotSuccess('N', response(200, { error: 'NOPERM' }));
    expect(failureOf(() => checkNotSuccess('N', response(200, { result: 0 }))).rule).toBe('N');
  });

  test('checkUtf8Body looks at the bytes, which JSON.parse of the decoded text would hide', () => {
    checkUtf8Body('U', response(200, { result: 'a\uFFFDb' }));
    const raw: HttpResponse = {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"result":"a'), Buffer.from([0xff]), Buffer.from('b"}')]),
      elapsedMs: 1,
    };
    expect(JSON.parse(raw.body.toString('utf8')).result).toBe('a\uFFFDb');
    expect(failureOf(() => checkUtf8Body('U', raw)).rule).toBe('U');
  });
});

describe('numbers in a body are integer literals (B.response.result-shape)', () => {
  test.each([
    ['{"result":1.0}', '1.0'],
    ['{"result":1e0}', '1e0'],
    ['[{"result":"OK"},{"result":2.50}]', '2.50'],
  ])('%s fails on the result shape, whatever rule the case reads it for', (text, written) => {
    const failure = failureOf(() => checkResult('B.path.command-args', response(200, text), 1));
    expect(failure.rule).toBe('B.response.result-shape');
    expect(failure.message).toContain(written);
  });

  test('integers, and digits inside strings, pass', () => {
    expect(() => checkResult('B.path.command-args', response(200, '{"result":-12}'), -12)).not.toThrow();
    expect(() => checkResult('B.path.command-args', response(200, '{"result":"1.0"}'), '1.0')).not.toThrow();
  });
});

describe('the bytes that came are judged (B.utf8.replacement), not their decoding', () => {
  test('a raw 0xFF inside a JSON string fails B.utf8.replacement, whatever rule the case reads it for', () => {
    const raw = Buffer.concat([Buffer.from('{"result":"a'), Buffer.from([0xff]), Buffer.from('b"}')]);
    const res = { status: 200, headers: { 'content-type': 'application/json' }, body: raw, elapsedMs: 1 };
    expect(failureOf(() => checkResult('B.path.command-args', res, 'a\uFFFDb')).rule).toBe('B.utf8.replacement');
    // The same text with U+FFFD written as UTF-8 passes.
    expect(() => checkResult('B.path.command-args', response(200, { result: 'a\uFFFDb' }), 'a\uFFFDb')).not.toThrow();
  });

  test('an empty body is no JSON at all: the shape check fails its own rule, not B.format.json', () => {
    const empty = { status: 405, headers: { 'content-type': 'application/json' }, body: Buffer.alloc(0), elapsedMs: 1 };
    expect(failureOf(() => checkError('B.methods.other-405', empty, { status: 405 })).rule).toBe(
      'B.response.error-shape',
    );
  });
});

describe('a 401 is held to one position (B.observe.unauthorized-text)', () => {
  test('its text is recorded, whatever it is; its body must be the Error object', () => {
    const notes: string[] = [];
    const observe = (note: string) => notes.push(note);
    expect(checkUnauthorized('B.auth.missing-401', response(401, { error: 'Unauthorized' }), 'POST /', observe)).toBe(
      'Unauthorized',
    );
    expect(notes.join()).toContain('Unauthorized');
    expect(
      failureOf(() =>
        checkUnauthorized('B.auth.missing-401', response(401, 'Unauthorized', 'text/plain'), 'x', observe),
      ).rule,
    ).toBe('B.response.error-shape');
    expect(
      failureOf(() => checkUnauthorized('B.auth.missing-401', response(200, { result: 'OK' }), 'x', observe)).rule,
    ).toBe('B.auth.missing-401');
  });
});
