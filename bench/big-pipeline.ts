/**
 * Big pipelines through the reference: POST /pipeline with 10,000 to 100,000 SET commands (the
 * request limit allows far more than the usual hundred), on loopback, one at a time. Prints the time
 * per request and per command, and the cost per command next to the smallest size's: a flat column
 * means time linear in the pipeline's length. Every item must be a result; a failed item is a defect.
 *
 *   node bench/big-pipeline.ts
 */
import { httpRequest, jsonBody } from '../src/http/http-client.ts';
import { pipelineRequest } from '../src/protocol/kv/request-forms.ts';
import { acquireRedis } from '../src/reference/redis/acquire-redis.ts';
import { startReferenceThread } from './reference-thread.ts';
import { runBench } from './run-bench.ts';

const sizes = [10_000, 20_000, 40_000, 100_000];

await runBench(async () => {
  const redis = await acquireRedis({ prefer: 'redis-server', env: { PATH: process.env.PATH ?? '' } });
  const reference = await startReferenceThread(redis.url).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });
  try {
    console.log('size      ms/request  µs/command  vs 10,000  failed items');
    let base = 0;
    for (const size of sizes) {
      const shape = pipelineRequest(Array.from({ length: size }, (_, index) => ['SET', `bigpipe:${index}`, 'v']));
      const started = performance.now();
      const res = await httpRequest({
        url: new URL(shape.path, reference.kvUrl).toString(),
        method: shape.method,
        headers: { authorization: `Bearer ${reference.token}`, 'content-type': 'application/json' },
        body: shape.body ?? '',
        timeoutMs: 120_000,
      });
      const ms = performance.now() - started;
      const items = jsonBody(res);
      const failed = Array.isArray(items)
        ? items.filter((item) => !(item && typeof item === 'object' && 'result' in item)).length
        : size;
      const perCommand = (ms * 1000) / size;
      base ||= perCommand;
      console.log(
        `${String(size).padEnd(8)}  ${ms.toFixed(0).padStart(10)}  ${perCommand.toFixed(1).padStart(10)}  ${(perCommand / base).toFixed(2).padStart(9)}  ${failed}`,
      );
    }
  } finally {
    await reference.stop();
    await redis.stop();
  }
});
