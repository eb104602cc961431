/**
 * Spec "Endpoints > Area B" and "Events" 4: the /monitor and /subscribe/{channel} event streams and
 * /publish, with real concurrent clients. Streams close in cleanup; every wait has a timeout.
 */

import {
  type CaseContext,
  CheckFailure,
  defineCases,
  means,
  publishPath,
  requestTimeoutMs,
  subscribePath,
} from '../../src/engines/conformance/suite-api.ts';
import { mapLimit } from '../support/bounded.ts';
import { keySpace } from '../support/key-space.ts';
import { checkResult, checkThat, mediaType } from '../support/kv-checks.ts';
import { createKvClient, type KvClient } from '../support/kv-client.ts';
import { steps } from '../support/kv-steps.ts';
import {
  collectUntil,
  monitorLine,
  nextEvent,
  type OpenedStream,
  openKvStream,
  quotedArgs,
  redisTag,
} from '../support/kv-streams.ts';

/** The first data item of /monitor is OK; the JSON string "OK" is accepted and recorded. */
function isOk(data: string | undefined): boolean {
  return data === 'OK' || data === '"OK"';
}

/** Seconds to wait for stream items: generous, for a slow or remote target; a conforming one answers at once. */
/** How long a stream is waited on: the run's request timeout (10 s, or --timeout). */
const streamWaitMs = (): number => requestTimeoutMs();

/**
 * Opens /subscribe/{channel} and takes its first item, which must be subscribe,<channel>,<count>.
 * `rule` is the case's own: the subscription case checks the item strictly; a case about messages
 * only needs the subscription (the count is not required), and is blocked when it is not there.
 */
async function openSubscription(
  ctx: CaseContext,
  kv: KvClient,
  channel: string,
  rule = 'B.subscribe.subscribe-event',
): Promise<OpenedStream> {
  const stream = await openKvStream(ctx, kv, subscribePath(channel));
  const strict = rule === 'B.subscribe.subscribe-event';
  // For a case about messages, the subscription is only a means: when it is not there, the case is
  // blocked by the subscription's own rule.
  const check = async () => {
    const own = 'B.subscribe.subscribe-event';
    checkEventStream(own, stream, '/subscribe');
    const first = await nextEvent(stream, streamWaitMs());
    const match = first === undefined ? null : /^subscribe,(.*),(\d+)$/s.exec(first);
    checkThat(
      own,
      match?.[1] === channel && (!strict || Number(match[2]) >= 1),
      first === undefined ? `no event within ${streamWaitMs() / 1000} s` : `first event ${JSON.stringify(first)}`,
      `subscribe,${channel},<count${strict ? ' ≥ 1' : ''}>`,
    );
  };
  await (strict ? check() : means(check));
  return stream;
}

/** Opens /monitor and makes the target see one command, so the first item arrives without waiting. */
async function openMonitor(ctx: CaseContext, kv: KvClient, asMeans = true): Promise<OpenedStream> {
  const stream = await openKvStream(ctx, kv, '/monitor');
  // For a case about the items, the stream is only a means: without one the case is blocked.
  if (asMeans) await means(async () => checkEventStream('B.monitor.first-ok', stream, '/monitor'));
  await kv.root(['ECHO', `${ctx.keyPrefix}opened`]);
  return stream;
}

/** The stream opened as an event stream: status 200 and text/event-stream. */
function checkEventStream(rule: string, stream: OpenedStream, what: string): void {
  const type = mediaType(stream) ?? 'no content type';
  checkThat(
    rule,
    stream.status === 200 && type === 'text/event-stream',
    `${what}: status ${stream.status}, ${type}`,
    'status 200, text/event-stream',
  );
}

export const cases = defineCases([
  {
    id: 'kv.streams.monitor-first-ok',
    rules: ['B.monitor.first-ok'],
    title: '/monitor is an event stream whose first data item is OK',
    expect: 'POST /monitor with Accept: text/event-stream answers 200, text/event-stream, first data OK.',
    async run(ctx) {
      const kv = createKvClient(ctx);
      const stream = await openMonitor(ctx, kv, false);
      checkThat('B.monitor.first-ok', stream.status === 200, `status ${stream.status}`, 'status 200');
      const type = mediaType(stream) ?? '';
      checkThat('B.monitor.first-ok', type === 'text/event-stream', `content type ${type}`, 'text/event-stream');
      const first = await nextEvent(stream, streamWaitMs());
      const seen =
        first === undefined ? `no event within ${streamWaitMs() / 1000} s` : `first data ${JSON.stringify(first)}`;
      checkThat('B.monitor.first-ok', isOk(first), seen, 'OK');
      ctx.observe(`first /monitor data item: ${JSON.stringify(first)}`);
    },
  },
  {
    id: 'kv.streams.monitor-command-events',
    rules: ['B.monitor.command-events'],
    title: '/monitor sends one item per command: timestamp, client tag, quoted command and arguments',
    expect:
      'Commands of 3 concurrent clients each appear once, in each client’s order, as `<timestamp> <client tag> "CMD" "arg" …`; commands sent one after another (each answered before the next) appear in that order, before the concurrent ones.',
    async run(ctx) {
      const kv = createKvClient(ctx);
      const keys = keySpace(ctx, kv);
      const stream = await openMonitor(ctx, kv);
      // One client's commands in a row, each answered before the next is sent: the target saw them in
      // that order, after the ECHO openMonitor sent, and before the concurrent clients' commands.
      const opened = `${ctx.keyPrefix}opened`;
      const inRow = [1, 2].map((n) => `${ctx.keyPrefix}row${n}`);
      for (const text of inRow) await kv.root(['ECHO', text]);
      const clients = [0, 1, 2].map((client) => keys.key(`client${client}`));
      const sent = clients.map((key) => [
        ['SET', key, 'plain'],
        ['APPEND', key, 'more'],
        ['GET', key],
      ]);
      await mapLimit(sent, 3, async (commands) => {
        for (const command of commands) await kv.root(command);
      });
      const ours = (events: readonly string[]) => events.filter((event) => event.includes(ctx.keyPrefix));
      // The ECHO of openMonitor may come before the target's monitor started: it is not waited for.
      const counted = (events: readonly string[]) => ours(events).filter((event) => !event.includes(opened));
      const events = ours(await collectUntil(stream, (seen) => counted(seen).length >= 11, streamWaitMs()));
      const started = Date.now() / 1000;
      const parsed = events.map((event) => {
        const match = monitorLine.exec(event);
        const args = match ? quotedArgs(match[3] ?? '') : undefined;
        if (!match || !args) {
          throw new CheckFailure(
            'B.monitor.command-events',
            `item ${JSON.stringify(event)}`,
            '<timestamp> <client tag> "CMD" "arg" …',
          );
        }
        return {
          seconds: Number(match[1]),
          client: match[2] ?? '',
          args: [String(args[0]).toUpperCase(), ...args.slice(1)],
        };
      });
      // The ECHO of openMonitor only if seen; each ECHO in a row must be seen, in order, before the rest.
      const row = parsed.map((item) => String(item.args[1] ?? ''));
      const firstClient = row.findIndex((arg) => arg.includes(`${ctx.keyPrefix}client`));
      const head = (firstClient === -1 ? row : row.slice(0, firstClient)).filter(
        (arg) => !arg.includes(`${ctx.keyPrefix}client`),
      );
      const wanted = row.includes(opened) ? [opened, ...inRow] : inRow;
      checkThat(
        'B.monitor.command-events',
        JSON.stringify(head) === JSON.stringify(wanted) &&
          row.filter((arg) => !arg.includes(`${ctx.keyPrefix}client`)).length === wanted.length,
        `items in the order ${JSON.stringify(row.map((arg) => arg.replace(ctx.keyPrefix, '')))}`,
        `${JSON.stringify(wanted.map((arg) => arg.replace(ctx.keyPrefix, '')))} first, in the order sent, then the concurrent clients' commands`,
      );
      sent.forEach((commands, client) => {
        const key = clients[client] as string;
        const seen = parsed.filter((item) => item.args[1] === key).map((item) => item.args);
        checkThat(
          'B.monitor.command-events',
          JSON.stringify(seen) === JSON.stringify(commands),
          `client ${client}: ${JSON.stringify(seen)}`,
          JSON.stringify(commands),
        );
      });
      const skew = Math.max(...parsed.map((item) => Math.abs(item.seconds - started)));
      const tag = parsed[0]?.client ?? '';
      const form = redisTag.test(tag) ? 'Redis form [<db> <client>]' : 'not the Redis form';
      ctx.observe(
        `monitor client tag ${JSON.stringify(tag)} (${form}); timestamps within ${skew.toFixed(1)} s of this clock`,
      );
    },
  },
  {
    id: 'kv.streams.subscribe-first-event',
    rules: ['B.subscribe.subscribe-event'],
    title: '/subscribe/{channel} starts with subscribe,<channel>,<count>',
    expect: 'POST /subscribe/ch answers 200, text/event-stream, first data subscribe,ch,<count ≥ 1>.',
    async run(ctx) {
      const kv = createKvClient(ctx);
      const channel = `${ctx.keyPrefix}chan`;
      const stream = await openSubscription(ctx, kv, channel);
      const type = mediaType(stream) ?? '';
      checkThat(
        'B.subscribe.subscribe-event',
        type === 'text/event-stream',
        `content type ${type}`,
        'text/event-stream',
      );
      ctx.observe(`subscribe item: ${JSON.stringify(stream.seen[0]?.replace(channel, '<channel>'))}`);
    },
  },
  {
    id: 'kv.streams.subscribe-messages',
    rules: ['B.subscribe.message-events'],
    title: 'Every published message reaches every subscriber, in order, none lost',
    expect:
      '3 concurrent publishers × 20 messages (with commas, spaces, non-ASCII) reach 2 subscribers as message,<ch>,<msg>, each publisher in order.',
    async run(ctx) {
      const kv = createKvClient(ctx);
      const channel = `${ctx.keyPrefix}news`;
      const rule = 'B.subscribe.message-events';
      const subscribers = [
        await openSubscription(ctx, kv, channel, rule),
        await openSubscription(ctx, kv, channel, rule),
      ];
      const publishers = 3;
      const perPublisher = 20;
      const message = (publisher: number, index: number) => `p${publisher},m${index}, a comma, ü and spaces`;
      await mapLimit(
        Array.from({ length: publishers }, (_, p) => p),
        publishers,
        async (publisher) => {
          for (let index = 0; index < perPublisher; index++) {
            // Publishing is the means here (POST / PUBLISH, the plainest form); /publish has its own case.
            await steps(kv, [['PUBLISH', channel, message(publisher, index)]]);
          }
        },
      );
      const total = publishers * perPublisher;
      // One deadline for all subscribers, so a target that loses messages fails within the case's budget.
      const deadline = Date.now() + streamWaitMs();
      for (const [which, stream] of subscribers.entries()) {
        const left = Math.max(1, deadline - Date.now());
        const events = (await collectUntil(stream, (seen) => seen.length >= total + 1, left)).slice(1);
        const prefix = `message,${channel},`;
        const bad = events.find((event) => !event.startsWith(prefix));
        checkThat('B.subscribe.message-events', bad === undefined, `item ${JSON.stringify(bad)}`, `${prefix}<message>`);
        const payloads = events.map((event) => event.slice(prefix.length));
        for (let publisher = 0; publisher < publishers; publisher++) {
          const got = payloads.filter((payload) => payload.startsWith(`p${publisher},`));
          const want = Array.from({ length: perPublisher }, (_, index) => message(publisher, index));
          checkThat(
            'B.subscribe.message-events',
            JSON.stringify(got) === JSON.stringify(want),
            `subscriber ${which}, publisher ${publisher}: ${got.length} messages, first ${JSON.stringify(got[0])}`,
            `${want.length} messages in order, first ${JSON.stringify(want[0])}`,
          );
        }
        checkThat(
          'B.subscribe.message-events',
          payloads.length === total,
          `${payloads.length} messages`,
          `${total} messages`,
        );
      }
    },
  },
  {
    id: 'kv.streams.publish-result',
    rules: ['B.publish.result', 'B.subscribe.message-events'],
    title: '/publish/{channel}/{message} answers the number of receivers',
    expect: 'Publishing to a channel nobody listens to answers {"result":0}; with one subscriber {"result":1}.',
    async run(ctx) {
      const kv = createKvClient(ctx);
      const channel = `${ctx.keyPrefix}lonely`;
      checkResult(
        'B.publish.result',
        await kv.raw({ method: 'POST', path: publishPath(channel, 'hello') }),
        0,
        'no subscriber',
      );
      const stream = await openSubscription(ctx, kv, channel, 'B.subscribe.message-events');
      checkResult(
        'B.publish.result',
        await kv.raw({ method: 'POST', path: publishPath(channel, 'hi') }),
        1,
        'one subscriber',
      );
      const event = await nextEvent(stream, streamWaitMs());
      const want = `message,${channel},hi`;
      checkThat('B.subscribe.message-events', event === want, JSON.stringify(event), want);
    },
  },
]);
