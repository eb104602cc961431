/** The environment `serve` starts itself under: glibc's mmap threshold added, a user's own kept. */
import { describe, expect, it } from 'vitest';
import { allocatorEnvironment, mmapThresholdTunable } from '../../src/reference/allocator-settings.ts';

describe('allocatorEnvironment', () => {
  it('adds the threshold when GLIBC_TUNABLES is unset, and keeps the rest of the environment', () => {
    expect(allocatorEnvironment({ PATH: '/bin' })).toEqual({ PATH: '/bin', GLIBC_TUNABLES: mmapThresholdTunable });
  });
  it('appends it to tunables that set other things', () => {
    expect(allocatorEnvironment({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })?.GLIBC_TUNABLES).toBe(
      `glibc.malloc.arena_max=2:${mmapThresholdTunable}`,
    );
  });
  it('leaves a threshold the user set alone: nothing to relaunch for', () => {
    expect(allocatorEnvironment({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=4194304' })).toBeUndefined();
  });
});
