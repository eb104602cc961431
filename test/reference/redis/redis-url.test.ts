import { describe, expect, it } from 'vitest';
import { pingRedis, redactRedisUrl, waitForRedis } from '../../../src/reference/redis/redis-url.ts';
import { findFreePort } from '../../../src/shared/free-port.ts';

describe('redactRedisUrl', () => {
  it('hides the password and keeps everything else', () => {
    expect(redactRedisUrl('redis://user:s3cret@db.example:6380/2')).toBe('redis://user:***@db.example:6380/2');
    expect(redactRedisUrl('rediss://:s3cret@db.example')).toBe('rediss://:***@db.example');
    expect(redactRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('never echoes text it cannot parse, which might be a password', () => {
    expect(redactRedisUrl('not a url s3cret')).toBe('<unparseable Redis URL>');
  });
});

describe('pingRedis and waitForRedis', () => {
  it('fail within their budget when nothing listens', async () => {
    const url = `redis://127.0.0.1:${await findFreePort()}`;
    const started = Date.now();
    await expect(pingRedis(url, 500)).rejects.toThrow(/ECONNREFUSED|PING/);
    await expect(waitForRedis(url, 300)).rejects.toThrow(/no PING answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up at once when the process it waits for has exited', async () => {
    const url = `redis://127.0.0.1:${await findFreePort()}`;
    await expect(waitForRedis(url, 10_000, () => false)).rejects.toThrow(/exited before answering PING/);
  });
});
