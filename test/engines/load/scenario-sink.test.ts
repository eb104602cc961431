/**
 * openMessagingSink's wait when a sink thread stalls: a classifier that busy-waits on one request
 * keeps its thread from answering the flush, so the wait gives up after the flush limit (injected
 * here, 10 s in the engines) with a problem line, accounts for what was handed on before, and
 * returns long before the scenario's grace; nothing hangs. A real sink on one worker thread, real
 * HTTP requests.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadScenario } from '../../../src/engines/load/scenario-registry.ts';
import { openMessagingSink } from '../../../src/engines/load/scenario-sink.ts';
import { type Sink, startSink } from '../../../src/sink/sink-server.ts';

/** How long the classifier stalls its thread on the request whose body is `stall`. */
const stallMs = 2500;
const flushLimitMs = 300;

let dir: string;
let scenarioFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-messaging-sink-'));
  scenarioFile = join(dir, 'stalling.ts');
  // A scenario whose sink part classifies a body `<i>` as delivery i, and stalls its thread on `stall`.
  await writeFile(
    scenarioFile,
    `export default {
  name: 'stalling',
  title: 'a classifier that stalls its thread',
  area: 'messaging',
  defaults: { rate: 1, durationS: 1, batch: [1], valueSize: [0] },
  thresholds: [],
  setup: async () => ({}),
  request: () => ({ method: 'POST', path: '/', tags: {}, commands: 1, meta: undefined }),
  check: () => [],
  finish: async () => ({}),
  sink: {
    graceS: 30,
    answer: () => 200,
    classify(_state, arrival) {
      if (arrival.body === 'stall') {
        const until = Date.now() + ${stallMs};
        while (Date.now() < until) {}
        return { stream: 'delivery', index: 1, key: '1' };
      }
      return { stream: 'delivery', index: Number(arrival.body), key: arrival.body };
    },
    expected: (_state, index) => ({ delivery: [String(index)] }),
  },
};
`,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let sink: Sink | undefined;
afterAll(() => sink?.close());

async function post(url: string, body: string): Promise<number> {
  const agent = new Agent({ pipelining: 0 });
  try {
    const res = await request(url, { method: 'POST', body, dispatcher: agent });
    await res.body.dump();
    return res.statusCode;
  } finally {
    await agent.close();
  }
}

test('a flush the stalled thread never answers is a problem line after the limit, not a hang', {
  timeout: 30_000,
}, async () => {
  sink = await startSink({ signatureHeader: 'Svc-Signature', scheme: 'none', keys: async () => undefined, threads: 1 });
  const scenario = await loadScenario(scenarioFile);
  const opened = await openMessagingSink({ scenario, sink }, pathToFileURL(scenarioFile).href, { flushLimitMs });
  opened.setState({});
  const url = opened.urls.url('dest');
  expect(await post(url, '0')).toBe(200);
  // Handed on by the thread's next batch (every 50 ms), before it stalls.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const stalled = post(url, 'stall');
  // The thread is inside the classifier before the wait starts flushing.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = performance.now();
  const finished = await opened.finish([0, 1], {}, new AbortController().signal);
  const tookMs = performance.now() - started;
  expect(finished.problems).toEqual([`the sink did not hand on its arrivals within ${flushLimitMs} ms`]);
  // Neither the 30 s grace nor the stall: the flush limit, and what it takes to account.
  expect(tookMs).toBeGreaterThanOrEqual(flushLimitMs - 20);
  expect(tookMs).toBeLessThan(stallMs - 200);
  // What came before the stall is accounted; the stalled request was not handed on: lost, as far as the wait knows.
  expect(finished.messaging.accepted).toBe(2);
  expect(finished.messaging.delivery).toMatchObject({ expected: 2, received: 1, lost: 1, duplicated: 0 });
  // Once the stall ends, the thread answers the request it held.
  expect(await stalled).toBe(200);
  await opened.close();
});
