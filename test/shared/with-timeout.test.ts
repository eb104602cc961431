import { describe, expect, test } from 'vitest';
import { withTimeout } from '../../src/shared/with-timeout.ts';

describe('withTimeout', () => {
  test('withTimeout rejects once the time is up', async () => {
    await expect(withTimeout(new Promise(() => {}), 20, 'too slow')).rejects.toThrow('too slow');
    await expect(withTimeout(Promise.resolve(3), 20, 'never')).resolves.toBe(3);
  });
});
