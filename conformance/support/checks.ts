/**
 * The checks every suite uses: how a response reads in a received text, its status, a condition, and
 * whether a value is a JSON object. Each throws one CheckFailure(rule, received, expected) naming the
 * rule the call site enforces.
 */
import { CheckFailure, type HttpResponse, headerValue, show } from '../../src/suite-kit/suite-api.ts';

/** `status 400 {"error":"…"}`: how a response reads in a received text. */
export function describe(res: HttpResponse): string {
  const type = headerValue(res, 'content-type') ?? 'no content type';
  return `status ${res.status} (${type.split(';')[0]}) ${show(res.body.toString('utf8'), 160)}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function checkStatus(rule: string, res: HttpResponse, expected: number | readonly number[], context?: string) {
  const allowed = typeof expected === 'number' ? [expected] : expected;
  if (!allowed.includes(res.status)) {
    throw new CheckFailure(rule, describe(res), `status ${allowed.join(' or ')}`, context);
  }
}

/** Fails with `rule` unless `condition`; `received` and `expected` say what was seen and wanted. */
export function checkThat(rule: string, condition: boolean, received: string, expected: string, context?: string) {
  if (!condition) throw new CheckFailure(rule, received, expected, context);
}
