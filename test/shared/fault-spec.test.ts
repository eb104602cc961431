/**
 * The soak's fault grammar: every form the issue gives reads as it says, and what does not read is one
 * line that quotes the spec and says why.
 */
import { describe, expect, test } from 'vitest';
import { FaultSpecError, parseFaultSpec } from '../../src/shared/fault-spec.ts';

describe('parseFaultSpec', () => {
  test("the issue's examples, word for word", () => {
    expect(parseFaultSpec('kill every 10m')).toEqual({
      text: 'kill every 10m',
      action: 'kill',
      everyMs: 600_000,
      afterMs: 600_000,
      windowMs: 0,
    });
    expect(parseFaultSpec('pause 5s every 7m')).toMatchObject({ action: 'pause', windowMs: 5000, everyMs: 420_000 });
    expect(parseFaultSpec('partition sink 30s every 15m')).toMatchObject({
      action: 'partition',
      path: 'sink',
      windowMs: 30_000,
      everyMs: 900_000,
    });
    expect(parseFaultSpec('latency 200ms±50ms for 60s every 20m')).toMatchObject({
      action: 'latency',
      path: 'target',
      latencyMs: 200,
      jitterMs: 50,
      windowMs: 60_000,
      everyMs: 1_200_000,
    });
  });

  test('the other forms: restart, bandwidth, reset, a path, for on a window, +- for ±, after', () => {
    expect(parseFaultSpec('restart every 30m')).toMatchObject({ action: 'restart', windowMs: 0 });
    expect(parseFaultSpec('bandwidth sink 100KB/s for 1m every 10m')).toMatchObject({
      action: 'bandwidth',
      path: 'sink',
      bytesPerSecond: 102_400,
      windowMs: 60_000,
    });
    expect(parseFaultSpec('reset target for 10s every 5m')).toMatchObject({ action: 'reset', windowMs: 10_000 });
    expect(parseFaultSpec('pause for 5s every 7m')).toMatchObject({ windowMs: 5000 });
    expect(parseFaultSpec('latency 200ms+-50ms for 60s every 20m')).toMatchObject({ jitterMs: 50 });
    expect(parseFaultSpec('latency 80ms for 5s every 20s')).toMatchObject({ latencyMs: 80, jitterMs: 0 });
    expect(parseFaultSpec('  kill   every 20s after 5s ')).toMatchObject({
      text: 'kill every 20s after 5s',
      afterMs: 5000,
    });
  });

  test.each([
    ['', 'it is empty'],
    ['explode every 5m', '"explode" is none of kill, restart, pause, partition, latency, bandwidth, reset'],
    ['kill sink every 5m', 'kill is a fault of the process, not of a path'],
    ['kill', 'it needs how often: "every 10m"'],
    ['kill every', 'the period must be a duration'],
    ['kill every soon', 'not "soon"'],
    ['kill every 0s', 'the period must be above zero'],
    ['pause every 5m', "pause's length must be a duration"],
    ['latency for 5s every 1m', "latency's amount"],
    ['latency 50ms±80ms for 5s every 1m', 'the jitter (80ms) is larger than the latency (50ms)'],
    ['latency 200ms every 5m', 'latency needs how long it lasts: "for 60s"'],
    ['bandwidth 100kbps for 5s every 1m', "bandwidth's rate is a number with B/s, KB/s or MB/s"],
    ['pause 10m every 5m', 'it lasts 600 s, as long as its period or longer'],
    ['kill every 5m now', '"now" is left over'],
  ])('%j is refused: %s', (spec, why) => {
    let error: unknown;
    try {
      parseFaultSpec(spec);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FaultSpecError);
    const message = (error as Error).message;
    expect(message).toContain(why);
    expect(message).toContain(`"${spec}" is not a fault`);
    expect(message).not.toContain('\n');
  });
});
