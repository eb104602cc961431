/** The sink's command-line flags: a base URL with a path prefix is taken, a query is not; threads 0 to 64. */
import { describe, expect, test } from 'vitest';
import { sinkSettings } from '../../src/cli/sink-flags.ts';

describe('sinkSettings', () => {
  test('takes a base URL with or without a path prefix, and the threads', () => {
    expect(sinkSettings({ 'sink-url': 'https://tunnel.example/h/sink', 'sink-threads': 2 })).toEqual({
      url: 'https://tunnel.example/h/sink',
      threads: 2,
    });
    expect(sinkSettings({ 'sink-url': 'http://127.0.0.1:8080' })).toEqual({ url: 'http://127.0.0.1:8080' });
    expect(sinkSettings({ 'sink-threads': 0 })).toEqual({ threads: 0 });
    expect(sinkSettings({})).toBeUndefined();
  });

  test('refuses a URL with a query or fragment, or no URL at all, and too many threads, in one line each', () => {
    for (const url of ['http://host:1/a?x=1', 'http://host:1/#f', 'not a url', 'ftp://host/']) {
      expect(() => sinkSettings({ 'sink-url': url })).toThrow(/--sink-url takes a base URL/);
    }
    expect(() => sinkSettings({ 'sink-threads': 65 })).toThrow('--sink-threads takes 0 to 64 worker threads, not 65');
  });
});
