/**
 * ping: `GET /ping`, checked only for status 200: the load benchmarks' scenario (bench/load-*.ts),
 * loaded through `runLoad({ scenariosDir })`. Against bench/load-test-server.ts, setup asks
 * `GET /clock` and waits for the next stall window to begin, so the load starts on a window edge;
 * against any other target (no `untilWindowMs` in the answer) it starts at once.
 */
import { defineScenario, parseJson } from '../../src/protocol/scenario.ts';

/**
 * Answers checked on this thread, and when the first and last came (epoch ms): a driver reads it to
 * stop after N requests, to mark RSS, and for the span of the load itself.
 */
export const pingCounter = { answered: 0, firstAt: 0, lastAt: 0 };

/** One tag object, reused, as the kv scenarios do. */
const noTags = {};

export default defineScenario<null, undefined>({
  name: 'ping',
  title: 'GET /ping, status checked',
  area: 'kv',
  defaults: { rate: 1000, durationS: 10, batch: [1], valueSize: [0] },
  thresholds: [],
  async setup(context) {
    const answer = await context.send({ method: 'GET', path: '/clock' });
    const json = parseJson(answer.body) as { untilWindowMs?: unknown } | undefined;
    const wait = typeof json?.untilWindowMs === 'number' ? json.untilWindowMs : 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return null;
  },
  request() {
    return { method: 'GET', path: '/ping', tags: noTags, commands: 1, meta: undefined };
  },
  check(_state, _request, answer) {
    const now = Date.now();
    if (pingCounter.answered === 0) pingCounter.firstAt = now;
    pingCounter.lastAt = now;
    pingCounter.answered++;
    if (answer === null) return [];
    return [{ name: 'status is 200', ok: answer.status === 200 }];
  },
  async finish() {
    return {};
  },
});
