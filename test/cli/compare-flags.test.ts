import { describe, expect, test } from 'vitest';
import { commandTable } from '../../src/cli/command-table.ts';
import { parseTolerances } from '../../src/cli/compare-flags.ts';
import { compareMetrics } from '../../src/results/compare.ts';

describe('--tolerance', () => {
  test('a percentage is read as a share of the baseline', () => {
    expect(parseTolerances(['p99=5%', 'error-rate=1.5%'])).toEqual({ p99: 0.05, 'error-rate': 0.015 });
  });

  test('a bare number is refused with the spelling it needs, never read as 500% (issue 36)', () => {
    expect(() => parseTolerances(['p99=5'])).toThrow(
      '--tolerance "p99=5": a tolerance is a percentage; write its unit: p99=5%',
    );
    expect(() => parseTolerances(['p50=0.1'])).toThrow(/write its unit: p50=0\.1%/);
  });

  test('an unknown metric or a value that is no number is one usage line', () => {
    expect(() => parseTolerances(['p95=5%'])).toThrow(/expected METRIC=VALUE with METRIC one of p50, p90, p99/);
    expect(() => parseTolerances(['p99=lots'])).toThrow(/VALUE a percentage like 10%/);
  });

  test('latency takes the smallest latency change that counts, a duration with its unit', () => {
    expect(parseTolerances(['latency=2ms'])).toEqual({ latencyFloorMs: 2 });
    expect(parseTolerances(['latency=0.5s'])).toEqual({ latencyFloorMs: 500 });
    expect(() => parseTolerances(['latency=5'])).toThrow(/a duration with its unit like 5ms/);
    expect(() => parseTolerances(['latency=5%'])).toThrow(/a duration with its unit like 5ms/);
  });

  test("the command table names the metrics compare knows, and the latency floor (the config schema's tolerances)", () => {
    expect(commandTable.compare.options.tolerance.pairNames).toEqual([...compareMetrics, 'latency']);
  });
});
