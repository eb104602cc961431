/** The reply deadline of one request: the work's answer in time, the expiry's answer after. */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { withReplyDeadline } from '../../../src/reference/kv/reply-deadline.ts';

describe('withReplyDeadline', () => {
  it('answers what the work answers in time', async () => {
    expect(
      await withReplyDeadline(
        1_000,
        async () => 'replied',
        () => 'expired',
      ),
    ).toBe('replied');
  });

  it('answers the expiry once the deadline passes, without waiting for the work', async () => {
    const started = Date.now();
    const never = () => new Promise<string>(() => {});
    expect(await withReplyDeadline(50, never, () => 'expired')).toBe('expired');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('passes on a failure of the work, and a late failure after expiry is no unhandled rejection', async () => {
    await expect(
      withReplyDeadline(
        1_000,
        () => Promise.reject(new Error('lost')),
        () => 'expired',
      ),
    ).rejects.toThrow('lost');
    const late = async () => {
      await sleep(80);
      throw new Error('late');
    };
    expect(await withReplyDeadline(20, late, () => 'expired')).toBe('expired');
    await sleep(100);
  });
});
