/**
 * A series' trend over hours (issue 39 item 4): the least-squares slope of a series with its 95%
 * confidence interval, for a series in segments (one per process lifetime) fitted with one common slope
 * and an intercept of each segment's own: the pooled within-segment regression, as an analysis of
 * covariance fits it. A killed implementation starts again small; fitted as one line, each restart's
 * drop would read as memory given back (or hide a leak), while within each lifetime the slope is what a
 * leak is. A segment of one sample has its own intercept and nothing else, so it adds nothing.
 *
 * slope b = Σ(x − x̄ₛ)(y − ȳₛ) / Σ(x − x̄ₛ)², sums over every sample, x̄ₛ and ȳₛ its segment's means;
 * residual variance s² = Σ(y − ȳₛ − b(x − x̄ₛ))² / (n − k − 1), k the segments (each intercept and the
 * slope cost a degree of freedom); standard error √(s² / Σ(x − x̄ₛ)²); the interval b ± t·se with t the
 * 0.975 quantile of Student's t with n − k − 1 degrees of freedom (n − 2 for one segment). Pure: no
 * clock, no file.
 */

/** One observation: `x` (hours, say), `y` (MB), and the segment it belongs to (a process lifetime). */
export interface SeriesPoint {
  readonly x: number;
  readonly y: number;
  readonly segment: number | string;
}

export interface SlopeEstimate {
  /** y per unit of x. */
  readonly slope: number;
  /** The 95% confidence interval of the slope. */
  readonly lower: number;
  readonly upper: number;
  /** The standard error of the slope. */
  readonly standardError: number;
  /** Residual degrees of freedom: samples − segments − 1. */
  readonly degreesOfFreedom: number;
  readonly samples: number;
  /** Segments holding at least one sample. */
  readonly segments: number;
}

/** Lanczos' approximation of ln Γ(x), x > 0 (g = 7, nine terms: about 15 significant digits). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = c[0] as number;
  for (let i = 1; i < 9; i++) sum += (c[i] as number) / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The continued fraction of the regularized incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    for (const numerator of [
      (m * (b - m) * x) / ((a + m2 - 1) * (a + m2)),
      (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1)),
    ]) {
      d = 1 + numerator * d;
      if (Math.abs(d) < tiny) d = tiny;
      c = 1 + numerator / c;
      if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d;
      h *= d * c;
    }
    if (Math.abs(d * c - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The fraction converges fast on this side of the mean; the other side by symmetry.
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/**
 * The `p` quantile (0.5 < p < 1) of Student's t with `df` ≥ 1 degrees of freedom: the CDF above,
 * inverted by bisection (the CDF is monotone; 200 halvings reach a double's precision). Written here
 * rather than taken from a package: simple-statistics, the one statistics library in the tree, has no
 * t quantile.
 */
export function studentTQuantile(p: number, df: number): number {
  let low = 0;
  let high = 1;
  while (studentTCdf(high, df) < p) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-12 * high; i++) {
    const mid = (low + high) / 2;
    if (studentTCdf(mid, df) < p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/**
 * The pooled within-segment least-squares slope and its 95% interval; null when the points cannot
 * give one: fewer than one residual degree of freedom (at least three samples in one segment, or
 * samples + 1 more than segments + 2 overall), or no spread of x within any segment.
 */
export function pooledSlope(points: readonly SeriesPoint[]): SlopeEstimate | null {
  const groups = new Map<number | string, { n: number; sx: number; sy: number }>();
  for (const point of points) {
    const group = groups.get(point.segment) ?? { n: 0, sx: 0, sy: 0 };
    group.n += 1;
    group.sx += point.x;
    group.sy += point.y;
    groups.set(point.segment, group);
  }
  const degreesOfFreedom = points.length - groups.size - 1;
  if (degreesOfFreedom < 1) return null;
  const mean = (point: SeriesPoint) => {
    const group = groups.get(point.segment) as { n: number; sx: number; sy: number };
    return { x: group.sx / group.n, y: group.sy / group.n };
  };
  let sxx = 0;
  let sxy = 0;
  for (const point of points) {
    const m = mean(point);
    sxx += (point.x - m.x) ** 2;
    sxy += (point.x - m.x) * (point.y - m.y);
  }
  if (!(sxx > 0)) return null;
  const slope = sxy / sxx;
  let residual = 0;
  for (const point of points) {
    const m = mean(point);
    residual += (point.y - m.y - slope * (point.x - m.x)) ** 2;
  }
  const standardError = Math.sqrt(residual / degreesOfFreedom / sxx);
  const half = studentTQuantile(0.975, degreesOfFreedom) * standardError;
  return {
    slope,
    lower: slope - half,
    upper: slope + half,
    standardError,
    degreesOfFreedom,
    samples: points.length,
    segments: groups.size,
  };
}

/**
 * At most `limit` (≥ 2) of `items`, evenly strided, the first and the last always kept: a bounded
 * picture of a long series (the slope is computed on every sample, never on this).
 */
export function downsample<T>(items: readonly T[], limit: number): T[] {
  if (items.length <= limit) return [...items];
  const stride = (items.length - 1) / (limit - 1);
  return Array.from({ length: limit }, (_, i) => items[Math.round(i * stride)] as T);
}
