/** The trends' console line and table: memory first → last, the signed slope and interval, the mean CPU. */
import { describe, expect, test } from 'vitest';
import { findingsMarkdown, trendLines } from '../../../src/engines/soak/soak-report.ts';
import { trendSeries } from '../../../src/results/soak-trends.ts';

const mb = 1024 * 1024;
// 84.1 MB to 80.1 MB over three hours, half a core: Sxy −5, Sxx 5, −1 MB/h; RSS 5, s² 2.5, se √0.5, so
// the interval is −1 ± 4.303 × 0.7071 = −1 ± 3.042.
const falling = trendSeries(
  'implementation',
  [84.1, 81.1, 83.1, 80.1].map((y, i) => ({ atS: i * 3600, rssBytes: y * mb, cpuS: i * 1800, lifetime: 3 })),
);
const short = trendSeries('harness', [{ atS: 0, rssBytes: 50 * mb, cpuS: 0, lifetime: 1 }]);

describe('the trends in the reports', () => {
  test('a line per series; a series too short for a slope says so', () => {
    expect(trendLines([falling, short])).toEqual([
      'soak: trend implementation rss 84.1 MB → 80.1 MB, slope −1.0 MB/h (95% CI −4.0 … +2.0), cpu 0.50 cores (4 samples, 1 lifetime)',
      'soak: trend harness rss 50.0 MB → 50.0 MB, slope no slope (too few samples), cpu no data (1 sample, 1 lifetime)',
    ]);
  });

  test("summary.md's table", () => {
    const markdown = findingsMarkdown({ scenarios: [], updates: [], thresholds: [], ok: true }, [falling]);
    expect(markdown).toContain(
      '| implementation | 84.1 MB → 80.1 MB | −1.0 MB/h | −4.0 … +2.0 | 0.50 cores | 4 samples, 1 lifetime |',
    );
  });
});
