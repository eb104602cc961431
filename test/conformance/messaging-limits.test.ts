/** The parallelism case's count of requests in flight at once, from arrival times and the sink's hold. */
import { describe, expect, test } from 'vitest';
import { mostInFlight } from '../../conformance/messaging/limits.cases.ts';
import type { SinkRequest } from '../../src/sink/sink-server.ts';

const at = (...times: number[]) => times.map((time) => ({ at: time }) as SinkRequest);

describe('mostInFlight', () => {
  test('two at a time, each batch one hold after the last: 2', () => {
    expect(mostInFlight(at(0, 2, 1003, 1005, 2010, 2011), 1000)).toBe(2);
  });

  test('all at once: all of them', () => {
    expect(mostInFlight(at(0, 1, 2, 3, 4, 5), 1000)).toBe(6);
  });

  test('a request that starts just as another is answered does not overlap it (the slack)', () => {
    expect(mostInFlight(at(0, 960), 1000)).toBe(1);
    expect(mostInFlight(at(0, 800), 1000)).toBe(2);
  });

  test('nothing arrived: 0', () => {
    expect(mostInFlight([], 1000)).toBe(0);
  });
});
