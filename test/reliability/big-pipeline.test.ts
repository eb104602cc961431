/**
 * A pipeline as big as the request limit allows, on the reference: 100,000 commands answer 200 with a
 * result for every one (none reported failed although it ran), and another client's PING is answered
 * while it runs. The time itself is the benchmark's business (bench/big-pipeline.ts).
 */
import { describe, expect, it } from 'vitest';
import { commandsPerSignal, withWriteDeadline } from '../../src/reference/kv/write-deadline.ts';
import { call, useTestReference } from '../support/reference-fixture.ts';

const env = useTestReference();

describe('big pipelines', () => {
  it('100,000 commands all answer, and other clients are served meanwhile', async () => {
    const size = 100_000;
    const body = Array.from({ length: size }, (_, index) => ['SET', `big:${index}`, 'v']);
    const pipeline = call(env.ref, '/pipeline', { body });
    const ping = await call(env.ref, '/ping');
    expect(ping.json).toEqual({ result: 'PONG' });
    const res = await pipeline;
    expect(res.status).toBe(200);
    const items = res.json as { result?: unknown }[];
    expect(items).toHaveLength(size);
    expect(items.filter((item) => item.result !== 'OK')).toEqual([]);
  }, 60_000);

  it('commands sent together share one deadline on signals of at most a few commands each', async () => {
    await withWriteDeadline(1_000, async (deadline) => {
      const first = deadline.forCommand(0).abortSignal;
      expect(deadline.forCommand(commandsPerSignal - 1).abortSignal).toBe(first);
      expect(deadline.forCommand(commandsPerSignal).abortSignal).not.toBe(first);
      expect(deadline.abortSignal).toBe(first);
    });
  });
});
