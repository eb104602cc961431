/** The trend's math against values computed by hand: the pooled slope, its interval, Student's t. */
import { describe, expect, test } from 'vitest';
import { downsample, pooledSlope, studentTCdf, studentTQuantile } from '../../src/results/trend-slope.ts';

const line = (segment: number, points: readonly (readonly [number, number])[]) =>
  points.map(([x, y]) => ({ x, y, segment }));

describe("Student's t", () => {
  test('the 0.975 quantile: exact where a closed form exists, the printed tables elsewhere', () => {
    // df 1 is Cauchy: tan(π(p − ½)); df 2: (2p − 1) / √(2p(1 − p)).
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(Math.tan(0.475 * Math.PI), 9);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(0.95 / Math.sqrt(2 * 0.975 * 0.025), 9);
    // The tables' values, to their printed digits.
    expect(studentTQuantile(0.975, 3)).toBeCloseTo(3.182446, 6);
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228139, 6);
    expect(studentTQuantile(0.975, 30)).toBeCloseTo(2.042272, 6);
    expect(studentTQuantile(0.975, 1000)).toBeCloseTo(1.962339, 6);
    // Towards the normal's 1.959964 for many samples.
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(1.959966, 5);
  });

  test('the CDF is symmetric and ½ at 0', () => {
    expect(studentTCdf(0, 5)).toBeCloseTo(0.5, 12);
    expect(studentTCdf(-2, 5) + studentTCdf(2, 5)).toBeCloseTo(1, 12);
    // df 1: ½ + atan(t) / π.
    expect(studentTCdf(1, 1)).toBeCloseTo(0.75, 12);
  });
});

describe('the pooled slope', () => {
  test('one segment: the least-squares line, its standard error, the interval with t(0.975, n − 2)', () => {
    // x̄ 1.5, ȳ 4, Sxx 5, Sxy 11: b = 2.2; residuals 0.3, 0.1, −1.1, 0.7, RSS 1.8, s² = 1.8 / 2 = 0.9,
    // se = √(0.9 / 5) = √0.18; interval 2.2 ± 4.302653 × 0.424264 = 2.2 ± 1.825461.
    const fit = pooledSlope(
      line(1, [
        [0, 1],
        [1, 3],
        [2, 4],
        [3, 8],
      ]),
    );
    expect(fit?.slope).toBeCloseTo(2.2, 12);
    expect(fit?.standardError).toBeCloseTo(Math.sqrt(0.18), 12);
    expect(fit?.degreesOfFreedom).toBe(2);
    expect(fit?.lower).toBeCloseTo(0.374539, 6);
    expect(fit?.upper).toBeCloseTo(4.025461, 6);
    expect(fit).toMatchObject({ samples: 4, segments: 1 });
  });

  test('two lifetimes: one common slope, each its own intercept, so the restart’s drop is no negative trend', () => {
    // A: x̄ 1, ȳ 37/3, Sxy 4, Sxx 2; B: x̄ 4, ȳ 8/3, Sxy 4, Sxx 2. b = 8 / 4 = 2; residuals ∓⅓, ±⅔ in
    // each, RSS 4/3, df 6 − 2 − 1 = 3, s² 4/9, se = √(4/9 / 4) = ⅓; 2 ± 3.182446 / 3.
    const points = [
      ...line(100, [
        [0, 10],
        [1, 13],
        [2, 14],
      ]),
      ...line(200, [
        [3, 1],
        [4, 2],
        [5, 5],
      ]),
    ];
    const fit = pooledSlope(points);
    expect(fit?.slope).toBeCloseTo(2, 12);
    expect(fit?.standardError).toBeCloseTo(1 / 3, 12);
    expect(fit?.degreesOfFreedom).toBe(3);
    expect(fit?.lower).toBeCloseTo(2 - 1.060815, 6);
    expect(fit?.upper).toBeCloseTo(2 + 1.060815, 6);
    expect(fit?.segments).toBe(2);
    // One line through both would read the drop as memory given back.
    expect(pooledSlope(points.map((point) => ({ ...point, segment: 0 })))?.slope).toBeLessThan(-1);
  });

  test('a perfect line has a zero-width interval', () => {
    const fit = pooledSlope(
      line(1, [
        [0, 5],
        [1, 7],
        [2, 9],
      ]),
    );
    expect(fit).toMatchObject({ slope: 2, lower: 2, upper: 2, standardError: 0, degreesOfFreedom: 1 });
  });

  test('too few samples or no spread in time: no slope', () => {
    expect(pooledSlope([])).toBeNull();
    expect(
      pooledSlope(
        line(1, [
          [0, 1],
          [1, 2],
        ]),
      ),
    ).toBeNull();
    // Three samples in two lifetimes: two intercepts and a slope leave no degree of freedom.
    expect(pooledSlope([...line(1, [[0, 1]]), ...line(2, [[1, 2]]), ...line(2, [[2, 4]])])).toBeNull();
    // Each sample a lifetime of its own: nothing within a lifetime to fit.
    expect(pooledSlope([0, 1, 2, 3, 4].map((x) => ({ x, y: x, segment: x })))).toBeNull();
    expect(
      pooledSlope(
        line(1, [
          [1, 1],
          [1, 2],
          [1, 3],
        ]),
      ),
    ).toBeNull();
  });
});

describe('downsample', () => {
  test('evenly strided, first and last kept, never more than the limit', () => {
    expect(downsample([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 4)).toEqual([0, 3, 6, 9]);
    expect(downsample([0, 1, 2], 4)).toEqual([0, 1, 2]);
    const many = downsample(
      Array.from({ length: 17_281 }, (_, i) => i),
      720,
    );
    expect(many).toHaveLength(720);
    expect([many[0], many.at(-1)]).toEqual([0, 17_280]);
  });
});
