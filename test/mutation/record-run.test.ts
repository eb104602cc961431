import { describe, expect, test } from 'vitest';
import type { Exchange } from './exchange.ts';
import { namedCases } from './record-run.ts';

function exchange(path: string, body: string): Exchange {
  return {
    side: 'front',
    area: 'kv',
    routeClass: 'kv POST /',
    request: { method: 'POST', path, headers: {}, body: Buffer.from(body) },
    response: { status: 200, headers: {}, body: Buffer.from('{"result":1}') },
    at: 0,
  };
}

describe('an exchange is attributed to the case its keys name', () => {
  const ids = ['kv.commands.group.set', 'kv.commands.group.sorted-set', 'kv.commands.group.stream'];

  test('a key under a case prefix names that case only, never one whose id it begins with', () => {
    const body = '["XREADGROUP","GROUP","g","c","STREAMS","svch:1a2b:kv.commands.group.stream:k",">"]';
    expect(namedCases(exchange('/', body), ids)).toEqual(['kv.commands.group.stream']);
    expect(namedCases(exchange('/get/svch:1a2b:kv.commands.group.set:k', ''), ids)).toEqual(['kv.commands.group.set']);
    // The path form percent-encodes the colons.
    expect(namedCases(exchange('/get/svch%3A1a2b%3Akv.commands.group.set%3Ak', ''), ids)).toEqual([
      'kv.commands.group.set',
    ]);
  });

  test('a request that names no case is left to the clock', () => {
    expect(namedCases(exchange('/', '["COMMAND"]'), ids)).toEqual([]);
  });
});
