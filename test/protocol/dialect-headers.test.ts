import { expect, test } from 'vitest';
import { dialectHeaders } from '../../src/protocol/dialect-headers.ts';

test('Svc- headers take the dialect prefix, in any case; others are kept', () => {
  expect(
    dialectHeaders({ 'Svc-Callback': 'http://a', 'svc-retries': '1', 'content-type': 'text/plain' }, 'Upstash-'),
  ).toEqual({ 'Upstash-Callback': 'http://a', 'Upstash-retries': '1', 'content-type': 'text/plain' });
  expect(dialectHeaders({ 'Svc-Retries': '1' }, 'Svc-')).toEqual({ 'Svc-Retries': '1' });
  expect(dialectHeaders(undefined, 'Svc-')).toEqual({});
});
