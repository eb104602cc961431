import { describe, expect, test } from 'vitest';
import {
  multiExecRequest,
  pathRequest,
  pipelineRequest,
  postBodyRequest,
  publishPath,
  queryString,
  rootRequest,
  subscribePath,
} from '../../../src/protocol/kv/request-forms.ts';

describe('request forms', () => {
  test('the path form puts each argument in one percent-encoded segment', () => {
    expect(pathRequest('GET', ['SET', 'a/b', Uint8Array.from([0xff])])).toEqual({
      method: 'GET',
      path: '/SET/a%2Fb/%FF',
    });
  });

  test('a POST body is the last argument, query pairs are encoded', () => {
    expect(postBodyRequest(['SET', 'k'], 'v', [['EX', '10']])).toEqual({
      method: 'POST',
      path: '/SET/k',
      query: [['EX', '10']],
      body: 'v',
      contentType: 'text/plain; charset=utf-8',
    });
    expect(postBodyRequest(['SET', 'k'], Uint8Array.from([1])).contentType).toBe('application/octet-stream');
    expect(queryString([['a b', 'c&d']])).toBe('?a%20b=c%26d');
    expect(queryString()).toBe('');
  });

  test('POST /, /pipeline and /multi-exec carry JSON arrays', () => {
    expect(rootRequest(['GET', 'k'])).toMatchObject({
      path: '/',
      body: '["GET","k"]',
      contentType: 'application/json',
    });
    expect(pipelineRequest([['INCR', 'k']])).toMatchObject({ path: '/pipeline', body: '[["INCR","k"]]' });
    expect(multiExecRequest([['INCR', 'k']])).toMatchObject({ path: '/multi-exec', body: '[["INCR","k"]]' });
  });

  test('stream and publish paths', () => {
    expect(subscribePath('a b')).toBe('/subscribe/a%20b');
    expect(publishPath('c', 'hi/there')).toBe('/publish/c/hi%2Fthere');
  });
});
