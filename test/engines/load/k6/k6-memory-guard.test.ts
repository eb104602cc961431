import { describe, expect, test } from 'vitest';
import { defaultK6MaxRssMb, k6GoMemoryLimit, k6MaxRssBytes } from '../../../../src/engines/load/k6/k6-memory-guard.ts';

describe("k6's memory: the guard's ceiling and Go's soft limit under it", () => {
  test('the ceiling: SVC_K6_MAX_RSS_MB, else the default; nonsense is the default', () => {
    expect(k6MaxRssBytes({})).toBe(defaultK6MaxRssMb * 1024 * 1024);
    expect(k6MaxRssBytes({ SVC_K6_MAX_RSS_MB: '300' })).toBe(300 * 1024 * 1024);
    expect(k6MaxRssBytes({ SVC_K6_MAX_RSS_MB: 'lots' })).toBe(defaultK6MaxRssMb * 1024 * 1024);
  });

  test("Go's limit is half the ceiling, in Go's own unit, unless the user set GOMEMLIMIT", () => {
    expect(k6GoMemoryLimit({})).toBe(`${defaultK6MaxRssMb / 2}MiB`);
    expect(k6GoMemoryLimit({ SVC_K6_MAX_RSS_MB: '301' })).toBe('150MiB');
    expect(k6GoMemoryLimit({ GOMEMLIMIT: '3GiB', SVC_K6_MAX_RSS_MB: '300' })).toBe('3GiB');
  });
});
