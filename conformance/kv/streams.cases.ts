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
} from '../../src/suite-kit/suite-api.ts';
import { mapLimit } from '../support/bounded.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import { checkResultShape, checkThat, mediaType, resultOf } from '../support/kv-checks.ts';
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
  timestampSeconds,
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

const requirements: Requirements = {
  'kv.streams.monitor-first-ok': ['standard-token'],
  'kv.streams.monitor-command-events': ['root-form', 'monitor-stream'],
  // Channels hold `:` (%3A in /subscribe/… and /publish/…).
  'kv.streams.subscribe-first-event': ['root-form', 'percent-decoding'],
  // /publish answers first (its own rule); the subscription after it is a means (openSubscription).
  'kv.streams.publish-result': ['root-form', 'percent-decoding'],
  '*': ['subscribe-stream', 'root-form', 'percent-decoding'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
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
        'Commands of 3 concurrent clients each appear once as `<timestamp> <client tag> "CMD" "arg" …`; the timestamps of commands sent one after another (each answered before the next) do not go back. The order of the items is recorded: the spec promises none.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const stream = await openMonitor(ctx, kv);
        // One client's commands in a row, each answered before the next is sent: the target saw them in
        // that order, after the ECHO openMonitor sent, and before the concurrent clients' commands.
        const opened = `${ctx.keyPrefix}opened`;
        // Four, so that a stream reordering items in pairs has a pair inside the row whatever it is aligned to.
        const inRow = [1, 2, 3, 4].map((n) => `${ctx.keyPrefix}row${n}`);
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
        const events = ours(
          await collectUntil(stream, (seen) => counted(seen).length >= inRow.length + 9, streamWaitMs()),
        );
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
          const seconds = timestampSeconds(match[1] ?? '');
          checkThat(
            'B.monitor.command-events',
            Number.isFinite(seconds),
            `item ${JSON.stringify(event)}`,
            'a timestamp first (Unix seconds or ISO 8601)',
          );
          return {
            seconds,
            client: match[2] ?? '',
            args: [String(args[0]).toUpperCase(), ...args.slice(1)],
          };
        });
        // Spec: "one data item per command seen". Each ECHO in a row is seen once (the one of openMonitor
        // only if the stream had started), each client's commands once each. In what order the items come
        // the spec does not say ("one data item per command seen", no order), so the order is recorded.
        const row = parsed.map((item) => String(item.args[1] ?? ''));
        const short = (args: readonly string[]) => args.map((arg) => arg.replace(ctx.keyPrefix, ''));
        for (const text of inRow) {
          const count = row.filter((arg) => arg === text).length;
          checkThat('B.monitor.command-events', count === 1, `${count} items for ECHO ${short([text])}`, 'one item');
        }
        const sorted = (list: readonly (readonly string[])[]) => list.map((args) => JSON.stringify(args)).sort();
        sent.forEach((commands, client) => {
          const key = clients[client] as string;
          const seen = parsed.filter((item) => item.args[1] === key).map((item) => item.args);
          checkThat(
            'B.monitor.command-events',
            JSON.stringify(sorted(seen)) === JSON.stringify(sorted(commands)),
            `client ${client}: ${JSON.stringify(seen.map(short))}`,
            `each of ${JSON.stringify(commands.map(short))} once`,
          );
        });
        // An item's timestamp is when its command was seen: a command answered before the next was sent
        // was seen first, so along one client's commands in a row the timestamps never go back (whatever
        // order the items arrive in).
        const inSendOrder = [
          ...inRow.map((text) => parsed.find((item) => item.args[1] === text)),
          ...sent.flatMap((commands, client) =>
            commands.map((command) =>
              parsed.find(
                (item) => JSON.stringify(item.args) === JSON.stringify(command) && item.args[1] === clients[client],
              ),
            ),
          ),
        ];
        const chains = [
          inSendOrder.slice(0, inRow.length),
          ...sent.map((_, client) => inSendOrder.slice(inRow.length + client * 3, inRow.length + client * 3 + 3)),
        ];
        for (const chain of chains) {
          const times = chain.map((item) => item?.seconds ?? Number.NaN);
          const back = times.findIndex((time, index) => index > 0 && time < (times[index - 1] as number));
          checkThat(
            'B.monitor.command-events',
            back === -1,
            `timestamps ${JSON.stringify(times)} of ${JSON.stringify(chain.map((item) => short(item?.args ?? [])))}`,
            'timestamps that do not go back along commands sent one after another',
          );
        }
        const wanted = row.includes(opened) ? [opened, ...inRow] : inRow;
        const head = row.filter((arg) => wanted.includes(arg));
        ctx.observe(
          JSON.stringify(head) === JSON.stringify(wanted)
            ? 'items in the order sent'
            : `items in the order ${JSON.stringify(short(row))}`,
        );
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
      title: 'Every published message reaches every subscriber, none lost',
      expect:
        '3 concurrent publishers × 20 messages (with commas, spaces, non-ASCII) reach 2 subscribers as message,<ch>,<msg>, each once; the order is recorded (the spec promises none).',
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
          checkThat(
            'B.subscribe.message-events',
            bad === undefined,
            `item ${JSON.stringify(bad)}`,
            `${prefix}<message>`,
          );
          const payloads = events.map((event) => event.slice(prefix.length));
          let ordered = true;
          for (let publisher = 0; publisher < publishers; publisher++) {
            const got = payloads.filter((payload) => payload.startsWith(`p${publisher},`));
            const want = Array.from({ length: perPublisher }, (_, index) => message(publisher, index));
            // Each message once; the spec shows the items' form, not their order, so the order is recorded.
            checkThat(
              'B.subscribe.message-events',
              JSON.stringify([...got].sort()) === JSON.stringify([...want].sort()),
              `subscriber ${which}, publisher ${publisher}: ${got.length} messages, first ${JSON.stringify(got[0])}`,
              `each of the ${want.length} messages once, first ${JSON.stringify(want[0])}`,
            );
            ordered &&= JSON.stringify(got) === JSON.stringify(want);
          }
          ctx.observe(
            `subscriber ${which}: ${ordered ? 'each publisher’s messages in the order sent' : 'messages out of the order sent'}`,
          );
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
      rules: ['B.publish.result', 'B.observe.publish-result'],
      title: '/publish/{channel}/{message} publishes the message and answers a JSON result',
      expect:
        'Publishing to a channel nobody listens to and to one with a subscriber each answer a JSON result; the subscriber gets message,<channel>,hi. What the result counts is recorded (the real service: the receivers).',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const channel = `${ctx.keyPrefix}lonely`;
        // Spec: /publish answers "JSON result": any result the spec allows; what it holds is not shown.
        const alone = resultOf(
          'B.publish.result',
          await kv.raw({ method: 'POST', path: publishPath(channel, 'hello') }),
          'no subscriber',
        );
        checkResultShape('B.publish.result', alone, 'no subscriber');
        // The subscription is the means (B.subscribe.subscribe-event has its own case); POST / PUBLISH
        // reaching it is the positive the /publish route is compared with (B.subscribe.message-events).
        const stream = await openSubscription(ctx, kv, channel, 'B.subscribe.message-events');
        await means(async () => {
          await steps(kv, [['PUBLISH', channel, 'plain']]);
          const event = await nextEvent(stream, streamWaitMs());
          const want = `message,${channel},plain`;
          checkThat('B.subscribe.message-events', event === want, `POST / PUBLISH: ${JSON.stringify(event)}`, want);
        });
        const heard = resultOf(
          'B.publish.result',
          await kv.raw({ method: 'POST', path: publishPath(channel, 'hi') }),
          'one subscriber',
        );
        checkResultShape('B.publish.result', heard, 'one subscriber');
        const event = await nextEvent(stream, streamWaitMs());
        const want = `message,${channel},hi`;
        checkThat('B.publish.result', event === want, `after /publish: ${JSON.stringify(event)}`, want);
        ctx.observe(`/publish results: ${JSON.stringify(alone)} with no subscriber, ${JSON.stringify(heard)} with one`);
      },
    },
  ]),
);
