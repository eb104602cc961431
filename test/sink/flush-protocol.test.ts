/** The flush protocol waits for every running thread's answer, and for none that ended. */
import { describe, expect, test } from 'vitest';
import { FlushProtocol } from '../../src/sink/flush-protocol.ts';

const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('FlushProtocol', () => {
  test('resolves once each thread answered its id; an answer to another id counts for nothing', async () => {
    const protocol = new FlushProtocol<string>();
    const asked: number[] = [];
    const first = protocol.flush(new Set(['a', 'b']), (id) => asked.push(id));
    const second = protocol.flush(new Set(['a']), (id) => asked.push(id));
    expect(asked).toEqual([0, 1]);
    protocol.answered('a', 0);
    expect(await settled(first)).toBe(false);
    protocol.answered('b', 1);
    expect(await settled(first)).toBe(false);
    protocol.answered('b', 0);
    expect(await settled(first)).toBe(true);
    protocol.answered('a', 1);
    expect(await settled(second)).toBe(true);
  });

  test('a thread that ended answers every flush; with no thread running nothing is asked', async () => {
    const protocol = new FlushProtocol<string>();
    const asked: number[] = [];
    const waiting = protocol.flush(new Set(['a', 'b']), (id) => asked.push(id));
    protocol.answered('a');
    protocol.answered('b');
    expect(await settled(waiting)).toBe(true);
    await protocol.flush(new Set(), (id) => asked.push(id));
    expect(asked).toEqual([0]);
  });
});
