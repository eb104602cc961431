/**
 * The messaging scenarios' pure parts, on requests written by hand: what each publish sends, how each
 * answer marks the iteration accepted, how the sink answers, how every request the target sends
 * back is classified (and what is not the scenario's), and what one accepted iteration must cause.
 * The same classification through the sink's classifier module, with the state set after the URLs.
 */
import { describe, expect, test } from 'vitest';
import callbackThroughputModule from '../../scenarios/callback-throughput.ts';
import notifyFanoutModule from '../../scenarios/notify-fanout.ts';
import publishFanoutModule from '../../scenarios/publish-fanout.ts';
import { createClassifier, newStateCell, writeState } from '../../src/engines/load/sink-classifier.ts';
import { toBase64 } from '../../src/protocol/kv/base64.ts';
import type { Scenario, ScenarioContext, SinkArrival, SinkUrls, Tally } from '../../src/protocol/scenario.ts';

/** The harness's own scenarios have both optional hooks; the type says so once, here. */
function withHooks<State, Meta>(
  scenario: Scenario<State, Meta>,
): Scenario<State, Meta> & Required<Pick<Scenario<State, Meta>, 'setup' | 'finish'>> {
  if (scenario.setup === undefined || scenario.finish === undefined) throw new Error(`${scenario.name} lacks a hook`);
  return scenario as Scenario<State, Meta> & Required<Pick<Scenario<State, Meta>, 'setup' | 'finish'>>;
}
const callbackThroughput = withHooks(callbackThroughputModule);
const notifyFanout = withHooks(notifyFanoutModule);
const publishFanout = withHooks(publishFanoutModule);

const sink: SinkUrls = { url: (role, rest = '') => `http://sink.test/tok/${role}${rest}` };

/** A context whose sends are recorded and answered `answer`; `params` as the engine fills them (none: defaults). */
function contextOf(answer = { status: 200, body: '{}' }, rate = 2, durationS = 5, params: Record<string, number> = {}) {
  const sent: { method: string; path: string; body?: string }[] = [];
  const context: ScenarioContext = {
    prefix: 'svc-load:run1:test:abc',
    options: { durationS, rate, connections: 10, batch: [1], valueSize: [0], seed: 42, params },
    sink,
    problem: () => {},
    async send(request) {
      sent.push(request);
      return answer;
    },
  };
  return { context, sent };
}

function tallyOf() {
  const marks: number[] = [];
  const tally: Tally = { add: () => {}, mark: (_name, index) => marks.push(index) };
  return { tally, marks };
}

const arrival = (role: string, rest: string, body: string, headers: Record<string, string> = {}): SinkArrival => ({
  role,
  rest,
  method: 'POST',
  headers,
  body,
});

const random = () => 0.5;

describe('publish-fanout', () => {
  test('creates a group of 8 endpoints on the sink, publishes to it, accepts an array of 8', async () => {
    const { context, sent } = contextOf();
    const state = await publishFanout.setup(context);
    expect(sent[0]?.path).toBe(`/v2/topics/${state.group}/endpoints`);
    expect(state.group).toMatch(/^[A-Za-z0-9._-]+$/);
    const endpoints = (JSON.parse(sent[0]?.body ?? '') as { endpoints: { name: string; url: string }[] }).endpoints;
    expect(endpoints.map((item) => item.name)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7']);
    expect(endpoints[3]?.url).toBe('http://sink.test/tok/dest/e3');
    const request = publishFanout.request(state, { index: 7, random });
    expect(request.path).toBe(`/v2/publish/${state.group}`);
    expect(JSON.parse(request.body ?? '')).toMatchObject({ i: 7 });
    const { tally, marks } = tallyOf();
    const eight = JSON.stringify(endpoints.map((_, at) => ({ messageId: `m${at}`, url: 'u' })));
    expect(publishFanout.check(state, request, { status: 200, body: eight }, tally).every((c) => c.ok)).toBe(true);
    expect(publishFanout.check(state, request, { status: 200, body: '[]' }, tally).some((c) => !c.ok)).toBe(true);
    expect(publishFanout.check(state, request, null, tally)).toEqual([]);
    expect(marks).toEqual([7]);
    await publishFanout.finish(state, context, {});
    expect(sent.at(-1)).toMatchObject({ method: 'DELETE', path: `/v2/topics/${state.group}` });
  });

  test('--param endpoints=3: a group of 3, a publish accepted with 3 messages, deliveries to e3 none of its own', async () => {
    const { context, sent } = contextOf(undefined, 2, 5, { endpoints: 3 });
    const state = await publishFanout.setup(context);
    const endpoints = (JSON.parse(sent[0]?.body ?? '') as { endpoints: { name: string }[] }).endpoints;
    expect(endpoints.map((item) => item.name)).toEqual(['e0', 'e1', 'e2']);
    const request = publishFanout.request(state, { index: 4, random });
    const { tally, marks } = tallyOf();
    const answer = (count: number) => ({
      status: 200,
      body: JSON.stringify(Array.from({ length: count }, (_, at) => ({ messageId: `m${at}`, url: 'u' }))),
    });
    expect(publishFanout.check(state, request, answer(8), tally).some((c) => !c.ok)).toBe(true);
    expect(publishFanout.check(state, request, answer(3), tally).every((c) => c.ok)).toBe(true);
    expect(marks).toEqual([4]);
    const part = publishFanout.sink!;
    expect(part.classify(state, arrival('dest', '/e2', '{"i":4,"t":1}'))).toMatchObject({ key: '4/e2' });
    expect(part.classify(state, arrival('dest', '/e3', '{"i":4,"t":1}'))).toBeUndefined();
    expect(part.classify(state, arrival('dest', '/e02', '{"i":4,"t":1}'))).toBeUndefined();
    expect(part.expected(state, 4).delivery).toHaveLength(3);
  });

  test('classifies a delivery by (message, endpoint); anything else is none of its own', async () => {
    const state = await publishFanout.setup(contextOf().context);
    const part = publishFanout.sink!;
    expect(part.classify(state, arrival('dest', '/e3', '{"i":7,"t":1000}'))).toEqual({
      stream: 'delivery',
      index: 7,
      key: '7/e3',
      sentAt: 1000,
      tags: { endpoint: 'e3' },
    });
    expect(part.classify(state, arrival('dest', '/e9', '{"i":7,"t":1000}'))).toBeUndefined();
    expect(part.classify(state, arrival('dest', '/e3', 'not ours'))).toBeUndefined();
    expect(part.classify(state, arrival('callback', '/e3', '{"i":7,"t":1000}'))).toBeUndefined();
    expect(part.expected(state, 7).delivery).toHaveLength(8);
    expect(part.expected(state, 7).delivery?.[3]).toEqual({ key: '7/e3', tags: { endpoint: 'e3' } });
  });
});

describe('callback-throughput', () => {
  const setup = () => callbackThroughput.setup(contextOf().context);

  /** The indices among the first `count` whose destination fails. */
  const failingOf = (state: Awaited<ReturnType<typeof setup>>, count: number) =>
    Array.from({ length: count }, (_, index) => index).filter((index) =>
      callbackThroughput.request(state, { index, random }).path.includes('/dest/fail/'),
    );

  test('exactly 5 % fails, spread evenly (every 20th), whatever the seed; a failing destination answers 500', async () => {
    const state = await setup();
    expect(failingOf(state, 60)).toEqual([19, 39, 59]);
    // ⌊n·S⌋ of the first n, for every n.
    const failing = failingOf(state, 2000);
    for (const n of [1, 19, 20, 21, 999, 1000, 2000]) {
      expect(
        failing.filter((index) => index < n),
        `n = ${n}`,
      ).toHaveLength(Math.floor(n / 20));
    }
    const other = await callbackThroughput.setup({
      ...contextOf().context,
      options: { ...contextOf().context.options, seed: 1 },
    });
    expect(failingOf(other, 2000)).toEqual(failing);
    const paths = Array.from({ length: 20 }, (_, index) => callbackThroughput.request(state, { index, random }).path);
    expect(paths[5]).toMatch(/^\/v2\/publish\/http:\/\/sink\.test\/tok\/dest\/(ok|fail)\/5$/);
    const part = callbackThroughput.sink!;
    expect(part.answer(state, 'dest', '/fail/3')).toBe(500);
    expect(part.answer(state, 'dest', '/ok/3')).toBe(200);
    expect(part.answer(state, 'callback', '')).toBe(200);
  });

  test('--param fail-share: ⌊n·S⌋ of the first n fail, also where floating point misses (0.29 · 100 < 29)', async () => {
    const failingWith = async (share: number, count: number) =>
      failingOf(await callbackThroughput.setup(contextOf(undefined, 2, 5, { 'fail-share': share }).context), count);
    expect(0.29 * 100).toBeLessThan(29);
    expect(await failingWith(0.29, 100)).toHaveLength(29);
    expect(await failingWith(0.07, 100)).toHaveLength(7);
    expect(await failingWith(0.5, 10)).toEqual([1, 3, 5, 7, 9]);
    expect(await failingWith(1, 10)).toHaveLength(10);
    expect(await failingWith(0, 1000)).toEqual([]);
    for (const share of [0.29, 0.07, 0.123456]) {
      const failing = await failingWith(share, 1000);
      for (const n of [1, 3, 7, 100, 301, 1000]) {
        // The share in millionths, whole numbers: ⌊n·S⌋ exactly.
        const exact = Math.floor((n * Math.round(share * 1e6)) / 1e6);
        expect(
          failing.filter((index) => index < n),
          `S = ${share}, n = ${n}`,
        ).toHaveLength(exact);
      }
    }
  });

  test('publishes with the callback headers as the spec names them, one retry', async () => {
    const state = await setup();
    const request = callbackThroughput.request(state, { index: 1, random });
    expect(request.headers).toEqual({
      'Svc-Retries': '1',
      'Svc-Callback': 'http://sink.test/tok/callback',
      'Svc-Failure-Callback': 'http://sink.test/tok/failure',
    });
    const { tally, marks } = tallyOf();
    callbackThroughput.check(state, request, { status: 201, body: '{"messageId":"m1"}' }, tally);
    callbackThroughput.check(state, request, { status: 500, body: '{"messageId":"m1"}' }, tally);
    expect(marks).toEqual([1]);
  });

  test('deliveries by attempt, callbacks by the attempt they report, failure callbacks by message', async () => {
    const state = await setup();
    const part = callbackThroughput.sink!;
    const index = Array.from({ length: 200 }, (_, at) => at).find((at) =>
      callbackThroughput.request(state, { index: at, random }).path.includes('/fail/'),
    ) as number;
    const sent = `{"i":${index},"t":1000}`;
    const tags = { destination: 'fail' };
    expect(part.classify(state, arrival('dest', `/fail/${index}`, sent, { 'upstash-retried': '1' }))).toEqual({
      stream: 'delivery',
      index,
      key: `${index}#1`,
      sentAt: 1000,
      tags,
    });
    const callback = JSON.stringify({ retried: 1, sourceBody: toBase64(sent), status: 500 });
    expect(part.classify(state, arrival('callback', '', callback))).toEqual({
      stream: 'callback',
      index,
      key: `${index}#1`,
      causeKey: `${index}#1`,
      sentAt: 1000,
      tags,
    });
    expect(part.classify(state, arrival('failure', '', callback))).toMatchObject({
      stream: 'failureCallback',
      key: `${index}`,
    });
    expect(part.classify(state, arrival('dest', `/ok/${index}`, sent))).toBeUndefined();
    expect(part.classify(state, arrival('callback', '', '{"retried":0}'))).toBeUndefined();
    const keys = (items: readonly (string | { key: string })[] | undefined) =>
      (items ?? []).map((item) => (typeof item === 'string' ? item : item.key));
    const expected = part.expected(state, index);
    expect(keys(expected.delivery)).toEqual([`${index}#0`, `${index}#1`]);
    expect(keys(expected.callback)).toEqual([`${index}#0`, `${index}#1`]);
    expect(keys(expected.failureCallback)).toEqual([`${index}`]);
    const okIndex = Array.from({ length: 200 }, (_, at) => at).find(
      (at) => !callbackThroughput.request(state, { index: at, random }).path.includes('/fail/'),
    ) as number;
    const okExpected = part.expected(state, okIndex);
    expect(keys(okExpected.delivery)).toEqual([`${okIndex}#0`]);
    expect(okExpected.failureCallback).toBeUndefined();
  });
});

describe('notify-fanout', () => {
  test('setup creates 100 waiters per round the load can reach, each at its own sink URL', async () => {
    const { context, sent } = contextOf({ status: 201, body: '{}' }, 2, 3);
    const state = await notifyFanout.setup(context);
    expect(state.rounds).toBe(6);
    expect(sent).toHaveLength(600);
    expect(sent[0]?.path).toBe(`/v2/wait/${encodeURIComponent(`${state.eventPrefix}0`)}`);
    expect(JSON.parse(sent[101]?.body ?? '')).toEqual({ url: 'http://sink.test/tok/waiter/1/1', timeout: '123s' });
  });

  test('--param waiters=3: 3 waiters per round, a notify accepted when it names 3', async () => {
    const { context, sent } = contextOf({ status: 201, body: '{}' }, 2, 1, { waiters: 3 });
    const state = await notifyFanout.setup(context);
    expect(state).toMatchObject({ rounds: 2, waiters: 3 });
    expect(sent.map((item) => JSON.parse(item.body ?? '').url)).toEqual([
      'http://sink.test/tok/waiter/0/0',
      'http://sink.test/tok/waiter/0/1',
      'http://sink.test/tok/waiter/0/2',
      'http://sink.test/tok/waiter/1/0',
      'http://sink.test/tok/waiter/1/1',
      'http://sink.test/tok/waiter/1/2',
    ]);
    const { tally, marks } = tallyOf();
    const request = notifyFanout.request(state, { index: 1, random });
    const three = JSON.stringify([{ messageId: 'a' }, { messageId: 'b' }, { messageId: 'c' }]);
    notifyFanout.check(state, request, { status: 201, body: three }, tally);
    expect(marks).toEqual([1]);
    expect(notifyFanout.sink?.classify(state, arrival('waiter', '/1/3', '{"i":1,"t":5}'))).toBeUndefined();
    expect(notifyFanout.sink?.expected(state, 1).waiter).toEqual(['1/0', '1/1', '1/2']);
  });

  test('a setup refused with 429 is sent again; any other refusal fails setup with one line', async () => {
    let calls = 0;
    const { context } = contextOf();
    const flaky: ScenarioContext = {
      ...context,
      options: { ...context.options, rate: 1, durationS: 1 },
      async send() {
        calls++;
        return calls <= 3 ? { status: 429, body: 'slow down' } : { status: 201, body: '{}' };
      },
    };
    await expect(notifyFanout.setup(flaky)).resolves.toMatchObject({ rounds: 1 });
    expect(calls).toBe(103);
    const refused: ScenarioContext = { ...flaky, send: async () => ({ status: 400, body: 'no' }) };
    await expect(notifyFanout.setup(refused)).rejects.toThrow('creating the waiters: POST answered 400: no');
  });

  test('a notify is accepted when every waiter was notified; waiter requests keyed by round and waiter', async () => {
    const { context } = contextOf({ status: 201, body: '{}' }, 1, 2);
    const state = await notifyFanout.setup(context);
    const request = notifyFanout.request(state, { index: 1, random });
    expect(request.path).toBe(`/v2/notify/${encodeURIComponent(`${state.eventPrefix}1`)}`);
    const { tally, marks } = tallyOf();
    const all = JSON.stringify(Array.from({ length: 100 }, () => ({ messageId: 'm' })));
    notifyFanout.check(state, request, { status: 201, body: all }, tally);
    notifyFanout.check(state, request, { status: 201, body: '[]' }, tally);
    expect(marks).toEqual([1]);
    const part = notifyFanout.sink!;
    expect(part.classify(state, arrival('waiter', '/1/42', '{"i":1,"t":5}'))).toEqual({
      stream: 'waiter',
      index: 1,
      key: '1/42',
      sentAt: 5,
    });
    expect(part.classify(state, arrival('waiter', '/1/100', '{"i":1,"t":5}'))).toBeUndefined();
    expect(part.classify(state, arrival('waiter', '/2/4', '{"i":1,"t":5}'))).toBeUndefined();
    expect(part.expected(state, 1).waiter).toHaveLength(100);
  });
});

describe('the sink classifier module', () => {
  test('answers 200 and classifies nothing until the state is written, then as the scenario does', async () => {
    const cell = newStateCell();
    const url = new URL('../../scenarios/callback-throughput.ts', import.meta.url).href;
    const classifier = await createClassifier({ scenarioUrl: url, state: cell });
    const state = await callbackThroughput.setup(contextOf().context);
    const failing = Array.from({ length: 200 }, (_, at) => at).find((at) =>
      callbackThroughput.request(state, { index: at, random }).path.includes('/fail/'),
    ) as number;
    expect(classifier.answer('dest', `/fail/${failing}`)).toBe(200);
    expect(classifier.classify(arrival('dest', '/ok/1', '{"i":1,"t":1}', { 'svc-retried': '0' }))).toBeUndefined();
    writeState(cell, state);
    expect(classifier.answer('dest', `/fail/${failing}`)).toBe(500);
    expect(classifier.classify(arrival('dest', '/ok/1', '{"i":1,"t":1}', { 'svc-retried': '0' }))).toMatchObject({
      key: '1#0',
    });
  });

  test('a module without a sink part is refused', async () => {
    const url = new URL('../../scenarios/command.ts', import.meta.url).href;
    await expect(createClassifier({ scenarioUrl: url, state: newStateCell() })).rejects.toThrow(
      'no scenario with a sink part',
    );
  });
});

// The scenario modules are typed by their own State; the engines see them as Scenario.
const asScenarios: readonly Scenario[] = [publishFanout, callbackThroughput, notifyFanout] as unknown as Scenario[];
test('each is a messaging scenario with a sink part and gates on nothing lost', () => {
  for (const scenario of asScenarios) {
    expect(scenario.area, scenario.name).toBe('messaging');
    expect(scenario.sink, scenario.name).toBeDefined();
    expect(scenario.thresholds, scenario.name).toContain('messages_lost: count==0');
  }
});

test('each declares its parameter with the issue’s default, within its bounds; only notify-fanout needs the open model', () => {
  const declared = Object.fromEntries(asScenarios.map((scenario) => [scenario.name, scenario.params]));
  expect(declared['publish-fanout']).toMatchObject({ endpoints: { default: 8, integer: true, min: 1 } });
  expect(declared['callback-throughput']).toMatchObject({ 'fail-share': { default: 0.05, min: 0, max: 1 } });
  expect(declared['notify-fanout']).toMatchObject({ waiters: { default: 100, integer: true, min: 1 } });
  for (const scenario of asScenarios) {
    for (const [name, param] of Object.entries(scenario.params ?? {})) {
      expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(param.default, name).toBeGreaterThanOrEqual(param.min);
      expect(param.default, name).toBeLessThanOrEqual(param.max);
    }
  }
  expect(asScenarios.filter((scenario) => scenario.needsOpenModel).map((scenario) => scenario.name)).toEqual([
    'notify-fanout',
  ]);
});
