/** What the sink records beside its inboxes: the latest arrival, strays, and each problem once. */
import { describe, expect, test } from 'vitest';
import { SinkLog } from '../../src/sink/sink-log.ts';

describe('SinkLog', () => {
  test('keeps the latest arrival in whole ms, strays among them, and a problem once', () => {
    const log = new SinkLog();
    expect(log.lastArrivalAt).toBe(0);
    log.arrived(1_000.7);
    log.arrived(900);
    log.stray({ path: '/x', method: 'POST', at: 1_200, kind: 'stray' });
    expect(log.lastArrivalAt).toBe(1_200);
    expect(log.strays).toEqual([{ path: '/x', method: 'POST', at: 1_200, kind: 'stray' }]);
    log.problem('a sink thread failed: x');
    log.problem('a sink thread failed: x');
    expect(log.problems).toEqual(['a sink thread failed: x']);
  });
});
