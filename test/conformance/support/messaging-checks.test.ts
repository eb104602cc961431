/**
 * The callback body compared with what happened: the true body passes, and each field off in the way
 * an implementation gets it wrong fails A.callback.fields naming that field; what the spec leaves to
 * the implementation (its own retries, a delay not applied, the other reading of sourceHeader) passes;
 * integer fields judged as written (the raw JSON literal).
 */
import { describe, expect, test } from 'vitest';
import { type CallbackTruth, checkCallbackTruth } from '../../../conformance/support/messaging-checks.ts';
import { checkIntegerLiterals, nonIntegerLiterals } from '../../../conformance/support/messaging-raw-json.ts';
import type { SinkRequest } from '../../../src/sink/sink-server.ts';
import { CheckFailure } from '../../../src/suite-kit/check-failure.ts';

const answerBody = 'answered ✓ by the sink!';
const attempt = (status: number): SinkRequest => ({
  role: 'dest',
  method: 'POST',
  rest: '',
  headers: { 'svc-message-id': 'msg_1' },
  body: Buffer.from('payload ✓!'),
  at: 1_700_000_002_020,
  signature: { ok: true, key: 'current' },
  answered: status,
  answeredWith: { headers: { 'x-svc-harness-answer': 'tag' }, body: Buffer.from(answerBody) },
});

const truth: CallbackTruth = {
  attempts: [attempt(500), attempt(200)],
  url: 'http://sink/t/dest',
  method: 'POST',
  messageId: 'msg_1',
  sourceBody: 'payload ✓!',
  sourceHeaders: {
    all: { 'content-type': 'text/plain; charset=utf-8', 'Svc-Forward-X-Svc-Source': 'tag', 'Svc-Retries': '1' },
    delivered: { 'content-type': 'text/plain; charset=utf-8', 'X-Svc-Source': 'tag' },
    instructions: ['Svc-Forward-X-Svc-Source', 'Svc-Retries'],
  },
  publishedFrom: 1_700_000_000_000,
  publishedTo: 1_700_000_000_050,
  honouredDelayMs: 2000,
  messageIdHeader: 'Svc-Message-Id',
};

const body = (retried: number): Record<string, unknown> => ({
  status: retried === 0 ? 500 : 200,
  header: { 'X-Svc-Harness-Answer': ['tag'], 'content-type': ['text/plain'] },
  body: Buffer.from(answerBody).toString('base64'),
  retried,
  maxRetries: 1,
  sourceMessageId: 'msg_1',
  url: 'http://sink/t/dest',
  method: 'POST',
  sourceHeader: {
    'Content-Type': 'text/plain; charset=utf-8',
    'svc-forward-x-svc-source': 'tag',
    'svc-retries': '1',
    host: 'x',
  },
  sourceBody: Buffer.from('payload ✓!').toString('base64'),
  createdAt: '1700000000010',
  notBefore: '1700000002010',
  callerIP: '127.0.0.1',
});

function failedField(changed: Record<string, unknown>): string | undefined {
  try {
    checkCallbackTruth('A.callback.fields', { ...body(1), ...changed }, truth, 'the callback body');
    return undefined;
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    expect(error.rule).toBe('A.callback.fields');
    return error.received.split(' ')[0];
  }
}

describe('checkCallbackTruth', () => {
  test('the body of what happened passes, for each attempt', () => {
    expect(() => checkCallbackTruth('A.callback.fields', body(0), truth, 'c')).not.toThrow();
    expect(() => checkCallbackTruth('A.callback.fields', body(1), truth, 'c')).not.toThrow();
  });

  test('a forward header renamed beside the instructions holds neither reading: it fails on sourceHeader', () => {
    const renamed = { 'content-type': 'text/plain; charset=utf-8', 'X-Svc-Source': 'tag', 'Svc-Retries': '1' };
    expect(failedField({ sourceHeader: renamed })).toBe('sourceHeader');
  });

  test('sourceHeader as the headers the message carried to its destination, no instructions, passes', () => {
    const delivered = { 'content-type': 'text/plain; charset=utf-8', 'x-svc-source': 'tag' };
    expect(failedField({ sourceHeader: delivered })).toBeUndefined();
  });

  test('maxRetries is the target’s: its own retries pass while the attempts fit them, not once they are spent', () => {
    expect(failedField({ maxRetries: 3 })).toBeUndefined();
    const exhausted = { ...truth, attempts: [attempt(500), attempt(500)], exhausted: true };
    const spent = { ...body(1), status: 500 };
    expect(() => checkCallbackTruth('A.callback.fields', spent, exhausted, 'c')).not.toThrow();
    expect(() => checkCallbackTruth('A.callback.fields', { ...spent, maxRetries: 3 }, exhausted, 'c')).toThrow(
      /retried/,
    );
  });

  test('a delay the target did not apply leaves notBefore at createdAt', () => {
    const undelayed = { ...truth, honouredDelayMs: undefined };
    const now = { ...body(1), notBefore: '1700000000010' };
    expect(() => checkCallbackTruth('A.callback.fields', now, undelayed, 'c')).not.toThrow();
  });

  test('sourceHeader names compare case-insensitively, and headers the publish did not send may appear', () => {
    const extra = {
      ...body(1),
      sourceHeader: {
        'CONTENT-TYPE': 'text/plain; charset=utf-8',
        'Svc-Forward-X-Svc-Source': 'tag',
        'SVC-RETRIES': '1',
        host: 'x',
        'content-length': '10',
      },
    };
    expect(() => checkCallbackTruth('A.callback.fields', extra, truth, 'c')).not.toThrow();
  });

  test.each([
    ['retried one too high', { retried: 2 }, 'retried'],
    ['the status of another attempt', { status: 500 }, 'status'],
    ['the body unencoded', { body: answerBody }, 'body'],
    ['the answer’s own header dropped', { header: { 'content-type': ['text/plain'] } }, 'header'],
    ['fewer retries than the attempts seen', { maxRetries: 0, retried: 1 }, 'maxRetries'],
    ['another message id', { sourceMessageId: 'msg_2' }, 'sourceMessageId'],
    ['the callback URL as url', { url: 'http://sink/t/callback' }, 'url'],
    ['another method', { method: 'PUT' }, 'method'],
    ['a sent header missing', { sourceHeader: { 'content-type': 'text/plain; charset=utf-8' } }, 'sourceHeader'],
    ['after the first attempt', { notBefore: '1700000090000' }, 'notBefore'],
    ['the published body unencoded', { sourceBody: 'payload ✓!' }, 'sourceBody'],
    ['seconds, not milliseconds', { createdAt: '1700000000', notBefore: '1700000002' }, 'createdAt'],
    ['the delay applied but not reported', { notBefore: '1700000000010' }, 'notBefore'],
    ['no caller IP', { callerIP: '' }, 'callerIP'],
  ])('%s fails on that field', (_name, changed, field) => {
    expect(failedField(changed)).toBe(field);
  });
});

describe('integer fields as written', () => {
  const fields = ['status', 'retried', 'maxRetries'];
  test('integer literals pass; a fraction or an exponent is named, at the top level only by default', () => {
    expect(nonIntegerLiterals('{"status":200,"retried":0,"maxRetries":-1}', fields)).toEqual([]);
    expect(nonIntegerLiterals('{"status":200.0,"retried":0,"maxRetries":1e0}', fields)).toEqual([
      'status 200.0',
      'maxRetries 1e0',
    ]);
    expect(nonIntegerLiterals('{"header":{"status":1.5},"status":200}', fields)).toEqual([]);
    expect(nonIntegerLiterals('[{"waiter":{"deadline":17.0}}]', ['deadline'], true)).toEqual(['deadline 17.0']);
  });

  test('strings, absent fields and text that is not JSON are left to other checks', () => {
    expect(nonIntegerLiterals('{"status":"200.0"}', fields)).toEqual([]);
    expect(nonIntegerLiterals('not json', fields)).toEqual([]);
  });

  test('checkIntegerLiterals fails the rule it is given', () => {
    expect(() => checkIntegerLiterals('A.callback.field-types', '{"status":200.0}', fields)).toThrow(
      /A\.callback\.field-types/,
    );
  });
});
