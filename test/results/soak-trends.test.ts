/** The trends from the sampler's readings: MB, cores per lifetime, the slope per hour, soak.json's bounded form. */
import { describe, expect, test } from 'vitest';
import { type ResourceSample, trendSeries, trendsJson } from '../../src/results/soak-trends.ts';

const mb = 1024 * 1024;

describe('soak trends', () => {
  test('memory in MB, a slope per hour across a restart, CPU in cores within each lifetime only', () => {
    // 10 MB + 1 MB a minute in the first lifetime, 5 MB + 1 MB a minute in the second: 60 MB/h in both.
    const samples: ResourceSample[] = [
      { atS: 0, rssBytes: 10 * mb, cpuS: 1, lifetime: 7 },
      { atS: 60, rssBytes: 11 * mb, cpuS: 31, lifetime: 7 },
      { atS: 120, rssBytes: 12 * mb, cpuS: 61, lifetime: 7 },
      { atS: 180, rssBytes: 5 * mb, cpuS: 0.5, lifetime: 9 },
      { atS: 240, rssBytes: 6 * mb, cpuS: 60.5, lifetime: 9 },
      { atS: 300, rssBytes: 7 * mb, cpuS: 30, lifetime: 9 },
    ];
    const series = trendSeries('implementation', samples);
    expect(series.points.map((point) => point.rssMb)).toEqual([10, 11, 12, 5, 6, 7]);
    // Half a core, then a whole one; a lifetime's first sample has none, and a sum that went back is no reading.
    expect(series.points.map((point) => point.cpuCores)).toEqual([null, 0.5, 0.5, null, 1, null]);
    expect(series.cpuMeanCores).toBeCloseTo(2 / 3, 12);
    expect(series.cpuMaxCores).toBe(1);
    expect(series.lifetimes).toBe(2);
    expect(series.slope?.slope).toBeCloseTo(60, 9);
    expect(series.slope?.degreesOfFreedom).toBe(3);
    const json = trendsJson(5000, [series]);
    expect(json.series[0]).toMatchObject({
      process: 'implementation',
      samples: 6,
      lifetimes: 2,
      rssMb: { first: 10, last: 7, min: 5, max: 12 },
      slopeMbPerH: { value: 60, lower: 60, upper: 60, degreesOfFreedom: 3 },
      cpuCores: { mean: 0.6667, max: 1 },
    });
  });

  test('hours of samples: soak.json keeps 720 points, the slope is fitted on all of them', () => {
    const samples = Array.from(
      { length: 7201 },
      (_, i): ResourceSample => ({
        atS: i * 5,
        // 2 MB/h, with a sawtooth of ±0.5 MB that averages out.
        rssBytes: (100 + (2 * i * 5) / 3600 + (i % 2 === 0 ? 0.5 : -0.5)) * mb,
        cpuS: i * 0.5,
        lifetime: 1,
      }),
    );
    const json = trendsJson(5000, [trendSeries('harness', samples)]);
    const series = json.series[0];
    expect(series?.samples).toBe(7201);
    expect(series?.points).toHaveLength(720);
    expect(series?.slopeMbPerH?.value).toBeCloseTo(2, 2);
    expect(series?.cpuCores.mean).toBe(0.1);
  });

  test('no samples: no slope, no CPU', () => {
    const series = trendSeries('implementation', []);
    expect(series).toMatchObject({ slope: null, cpuMeanCores: null, cpuMaxCores: null, lifetimes: 0 });
    expect(trendsJson(250, [series]).series[0]).toMatchObject({ samples: 0, rssMb: null, slopeMbPerH: null });
  });
});
