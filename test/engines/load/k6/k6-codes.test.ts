/**
 * What k6's numbers mean to the harness (k6-codes.ts): every exit code k6 names is taken as
 * documented (99, k6's own threshold verdict on one segment, still a completed load the harness
 * judges again; an external abort an interrupted run; a script exception a failed one), an unknown
 * code or a kill by signal is a failure; and k6's request error codes fall into the harness's
 * classes, the generic 1000 read from Go's message.
 */
import { describe, expect, test } from 'vitest';
import { errorClassOfK6, type K6Outcome, k6Exit, k6ExitCodes } from '../../../../src/engines/load/k6/k6-codes.ts';
import type { ErrorClass } from '../../../../src/results/load-run.ts';

describe('k6Exit', () => {
  // errext/exitcodes in k6's source, with the outcome the harness gives each.
  const documented: readonly (readonly [number, string, K6Outcome])[] = [
    [0, 'success', 'completed'],
    [97, 'CloudTestRunFailed', 'failed'],
    [98, 'CloudFailedToGetProgress', 'failed'],
    [99, 'ThresholdsHaveFailed', 'completed'],
    [100, 'SetupTimeout', 'failed'],
    [101, 'TeardownTimeout', 'failed'],
    [102, 'GenericTimeout', 'failed'],
    [103, 'ScriptStoppedFromRESTAPI', 'interrupted'],
    [104, 'InvalidConfig', 'failed'],
    [105, 'ExternalAbort', 'interrupted'],
    [106, 'CannotStartRESTAPI', 'failed'],
    [107, 'ScriptException', 'failed'],
    [108, 'ScriptAborted', 'failed'],
    [109, 'GoPanic', 'failed'],
    [110, 'MarkedAsFailed', 'failed'],
  ];

  test('the table names every k6 exit code, no more', () => {
    expect(Object.keys(k6ExitCodes).map(Number)).toEqual(documented.map(([code]) => code));
  });

  test.each(documented)('exit code %i is %s: %s', (code, name, outcome) => {
    expect(k6Exit(code, null)).toEqual({ code: String(code), name, outcome });
  });

  test('99: k6 judged one segment; the load completed and the harness judges all of them', () => {
    expect(k6Exit(99, null).outcome).toBe('completed');
  });

  test('an exit code k6 does not name is a failure, its number kept', () => {
    expect(k6Exit(1, null)).toEqual({ code: '1', name: 'unknown exit code', outcome: 'failed' });
    expect(k6Exit(255, null)).toEqual({ code: '255', name: 'unknown exit code', outcome: 'failed' });
  });

  test('no exit code (killed by a signal): a failure named by the signal', () => {
    // The harness's deadline kills k6 with SIGKILL: no output flushed, nothing to trust.
    expect(k6Exit(null, 'SIGKILL')).toEqual({ code: 'SIGKILL', name: 'killed by SIGKILL', outcome: 'failed' });
    expect(k6Exit(null, null)).toEqual({ code: 'killed', name: 'killed by a signal', outcome: 'failed' });
  });
});

describe('errorClassOfK6', () => {
  // lib/netext/httpext/error_codes.go.
  const cases: readonly (readonly [code: string | undefined, message: string | undefined, ErrorClass])[] = [
    ['1212', 'dial: connection refused', 'refused'],
    ['1050', 'request timeout', 'timeout'],
    ['1211', 'dial: i/o timeout', 'timeout'],
    ['1201', 'write: broken pipe', 'reset'],
    ['1220', 'read: connection reset by peer', 'reset'],
    // The generic 1000: Go's message tells what it was.
    ['1000', 'malformed HTTP response "garbage"', 'garbage'],
    ['1000', 'net/http: HTTP/1.x transport connection broken: malformed HTTP status code "x"', 'garbage'],
    ['1000', 'bad status line', 'garbage'],
    ['1000', 'unexpected EOF', 'reset'],
    ['1000', 'http: server closed idle connection', 'reset'],
    ['1000', 'something else entirely', 'other'],
    ['1000', undefined, 'other'],
    // Codes without a class of their own: DNS, TLS, a missing tag.
    ['1101', 'lookup kv.invalid: no such host', 'other'],
    ['1300', 'tls: handshake failure', 'other'],
    [undefined, undefined, 'other'],
    // Only 1000 is read from its message: an unknown code that mentions EOF stays other.
    ['1200', 'unexpected EOF', 'other'],
  ];

  test.each(cases)('code %s, message %s → %s', (code, message, expected) => {
    expect(errorClassOfK6(code, message)).toBe(expected);
  });
});
