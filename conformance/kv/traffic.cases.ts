/**
 * What one endpoint shows of another's traffic (issue 20, coverage by construction; spec "Endpoints >
 * Area B" and "Events" 4): /monitor shows the commands of every request form, pipeline and
 * transaction items included, with their arguments' bytes; /subscribe/{channel} gets what is published
 * by every form, each payload byte for byte, and nothing published to a neighbouring channel (longer,
 * with a separator, in another case, or matching it as a glob).
 */
import {
  type CaseContext,
  CheckFailure,
  commandPath,
  defineCases,
  type HttpResponse,
  means,
  publishPath,
  requestTimeoutMs,
  show,
  subscribePath,
} from '../../src/suite-kit/suite-api.ts';
import { allOf, cover, type DimensionValue } from '../rules/dimensions.ts';
import { type ByteClass, byteClassSamples } from '../support/byte-classes.ts';
import { keySpace } from '../support/key-space.ts';
import { blockOnLeftOut, type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import { checkThat, mediaType } from '../support/kv-checks.ts';
import { createKvClient, type KvClient } from '../support/kv-client.ts';
import { availableForms, step } from '../support/kv-steps.ts';
import { collectUntil, monitorArgs, nextEvent, type OpenedStream, openKvStream } from '../support/kv-streams.ts';

type Source = Exclude<DimensionValue<'traffic-source'>, 'other-database'>;
const sources: readonly Source[] = ['get-path', 'post-body', 'post-root', 'pipeline', 'multi-exec', 'publish'];

/** Generous, for a slow or remote target; a conforming one answers at once. */
/** How long a stream is waited on: the run's request timeout (10 s, or --timeout). */
const streamWaitMs = (): number => requestTimeoutMs();

/** Any answer but a transport failure will do: what is checked is what the stream shows. */
async function sent(res: Promise<HttpResponse>, what: string): Promise<void> {
  const answer = await res;
  if (answer.status >= 500) throw new CheckFailure('B.status.ok-200', `${what}: status ${answer.status}`, 'an answer');
}

/** Opens a stream as a means: without it (status 200, text/event-stream, a first item) the case is blocked. */
async function openStream(ctx: CaseContext, kv: KvClient, path: string, rule: string): Promise<OpenedStream> {
  const stream = await openKvStream(ctx, kv, path);
  await means(async () => {
    const type = mediaType(stream) ?? 'no content type';
    checkThat(
      rule,
      stream.status === 200 && type === 'text/event-stream',
      `${path}: ${stream.status} ${type}`,
      '200 text/event-stream',
    );
    const first = await nextEvent(stream, streamWaitMs());
    checkThat(rule, first !== undefined, `${path}: no first item within ${streamWaitMs() / 1000} s`, 'a first item');
  });
  return stream;
}

/** The commands of `source` carrying `marker` as their one argument. */
function sendMarked(kv: KvClient, source: Source, marker: string, channel: string): Promise<HttpResponse> {
  switch (source) {
    case 'get-path':
      return kv.path('GET', ['echo', marker]);
    case 'post-body':
      return kv.postBody(['echo'], marker);
    case 'post-root':
      return kv.root(['ECHO', marker]);
    case 'pipeline':
      return kv.pipeline([['ECHO', marker], ['PING']]);
    case 'multi-exec':
      return kv.multiExec([['ECHO', marker], ['PING']]);
    case 'publish':
      return kv.raw({ method: 'POST', path: publishPath(channel, marker) });
  }
}

/**
 * The sources the target runs (a form it lacks fails its own case: B.methods.allowed for the path
 * forms, B.pipeline.order, B.multi-exec.results) and those left out, with the rule that judges them.
 */
async function sourcesRun(kv: KvClient): Promise<{ judged: Source[]; leftOut: { what: string; rule: string }[] }> {
  const forms = await availableForms(kv);
  const ruleOf: Partial<Record<Source, string>> = {
    ...(!forms.path && { 'get-path': 'B.methods.allowed', 'post-body': 'B.methods.allowed' }),
    ...(!forms.pipeline && { pipeline: 'B.pipeline.order' }),
    ...(!forms.multiExec && { 'multi-exec': 'B.multi-exec.results' }),
  };
  return {
    judged: sources.filter((source) => ruleOf[source] === undefined),
    leftOut: sources.flatMap((source) => {
      const rule = ruleOf[source];
      return rule === undefined ? [] : [{ what: source, rule }];
    }),
  };
}

/** Publishes `message` to `channel` through `source`. */
function publishThrough(kv: KvClient, source: Source, channel: string, message: string): Promise<HttpResponse> {
  switch (source) {
    case 'publish':
      return kv.raw({ method: 'POST', path: publishPath(channel, message) });
    case 'get-path':
      return kv.raw({ method: 'GET', path: publishPath(channel, message) });
    case 'post-body':
      return kv.raw({
        method: 'POST',
        path: commandPath(['publish', channel]),
        body: message,
        contentType: 'text/plain; charset=utf-8',
      });
    case 'post-root':
      return kv.root(['PUBLISH', channel, message]);
    case 'pipeline':
      return kv.pipeline([['PUBLISH', channel, message]]);
    case 'multi-exec':
      return kv.multiExec([['PUBLISH', channel, message]]);
  }
}

/** Monitor byte classes: the printable ones, whose quoting is Redis's `\"` and `\\` (kv-dimensions.ts). */
const monitorClasses = allOf('byte-class').filter(
  (name) => !['bmp', 'astral', 'invalid-utf8', 'nul', 'crlf'].includes(name),
) as ByteClass[];
const subscribeClasses = allOf('byte-class').filter(
  (name) => name !== 'crlf' && name !== 'invalid-utf8',
) as ByteClass[];

/** The payloads of `message,<channel>,<payload>` items, in arrival order (others are left out). */
function payloadsOf(events: readonly string[], channel: string): string[] {
  const prefix = `message,${channel},`;
  return events.filter((event) => event.startsWith(prefix)).map((event) => event.slice(prefix.length));
}

const requirements: Requirements = {
  // The stream first (the case's ground); every source sends keys and channels holding `:` (%3A in a
  // path). A source whose form the target lacks is left out and blocks the case after the others
  // were judged (blockOnLeftOut).
  'kv.traffic.monitor-sees-every-form': ['monitor-stream', 'root-form', 'percent-decoding'],
  '*': ['subscribe-stream', 'root-form', 'percent-decoding'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.traffic.monitor-sees-every-form',
      rules: ['B.monitor.command-events'],
      covers: [
        cover('B.monitor.command-events', { 'traffic-source': sources }),
        cover('B.monitor.command-events', { 'byte-class': monitorClasses }),
      ],
      title: '/monitor shows the commands of every request form, and their arguments exactly',
      expect:
        'ECHO by path, POST body, POST /, a /pipeline item, a /multi-exec item and a /publish each appear once with their argument; SET with a value of each printable byte class shows the value exactly.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const stream = await openStream(ctx, kv, '/monitor', 'B.monitor.first-ok');
        const channel = `${ctx.keyPrefix}mon-chan`;
        const { judged, leftOut } = await sourcesRun(kv);
        const markers = judged.map((source) => `${ctx.keyPrefix}mon-${source}`);
        for (const [index, source] of judged.entries())
          await sent(sendMarked(kv, source, markers[index] as string, channel), source);
        // The long sample without its non-ASCII letter, whose quoting is not shown.
        const sample = (name: ByteClass) =>
          name === 'long' ? 'long/ %+"\\'.repeat(150) : (byteClassSamples[name] as string);
        const values = monitorClasses.map((name) => [keys.key(`mon:${name}`), sample(name)] as const);
        for (const [key, value] of values) await step(kv, ['SET', key, value]);
        const lastKey = values.at(-1)?.[0] ?? '';
        const parsed = () => stream.seen.map((event) => monitorArgs(event)).filter((args) => args !== undefined);
        const done = () => parsed().some((args) => args[0] === 'SET' && args[1] === lastKey);
        await collectUntil(stream, done, streamWaitMs());
        const seen = parsed();
        const ours = stream.seen.filter((event) => event.includes(ctx.keyPrefix));
        for (const [index, source] of judged.entries()) {
          const marker = markers[index] as string;
          const commands = seen.filter((args) => args.includes(marker));
          const want = source === 'publish' ? 'PUBLISH' : 'ECHO';
          checkThat(
            'B.monitor.command-events',
            commands.length === 1 && commands[0]?.[0] === want,
            `${source}: ${commands.length} items with the marker (${show(
              ours.filter((event) => event.includes(marker)),
              160,
            )})`,
            `one ${want} item carrying ${JSON.stringify(marker)}`,
          );
        }
        for (const [key, value] of values) {
          const item = seen.find((args) => args[0] === 'SET' && args[1] === key);
          checkThat(
            'B.monitor.command-events',
            item?.[2] === value,
            `SET ${key.slice(ctx.keyPrefix.length)}: ${item === undefined ? 'no item' : show(item[2], 80)}`,
            `the value ${show(value, 80)}`,
          );
        }
        blockOnLeftOut(leftOut);
      },
    },
    {
      id: 'kv.traffic.subscribe-sees-every-form',
      rules: ['B.subscribe.message-events'],
      covers: [cover('B.subscribe.message-events', { 'traffic-source': sources })],
      title: 'A subscriber gets what every request form publishes',
      expect:
        'PUBLISH through /publish, a GET path, a POST body, POST /, a /pipeline item and a /multi-exec item each arrive once as message,<channel>,<message>; their order is recorded (the spec promises none).',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const channel = `${ctx.keyPrefix}forms`;
        const stream = await openStream(ctx, kv, subscribePath(channel), 'B.subscribe.subscribe-event');
        const { judged, leftOut } = await sourcesRun(kv);
        const want = judged.map((source) => `from ${source}`);
        for (const [index, source] of judged.entries())
          await sent(publishThrough(kv, source, channel, want[index] as string), source);
        await collectUntil(stream, (seen) => payloadsOf(seen, channel).length >= want.length, streamWaitMs());
        const got = payloadsOf(stream.seen, channel);
        // Each once; in what order the stream tells them the spec does not say, so that is recorded.
        checkThat(
          'B.subscribe.message-events',
          show([...got].sort()) === show([...want].sort()),
          `messages ${show(got)}`,
          `each of ${show(want)} once`,
        );
        ctx.observe(show(got) === show(want) ? 'messages in the order sent' : `messages in the order ${show(got)}`);
        blockOnLeftOut(leftOut);
      },
    },
    {
      id: 'kv.traffic.subscribe-neighbours',
      rules: ['B.subscribe.message-events'],
      covers: [cover('B.subscribe.message-events', { 'name-overlap': allOf('name-overlap') })],
      title: 'A subscriber gets nothing published to a neighbouring channel',
      expect:
        'Subscribers of `a` and of the literal `a*` get nothing published to `ab`, `a:b`, `A` (and `a` gets nothing of `a*`), then each gets its own message.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const name = (suffix: string) => `${ctx.keyPrefix}${suffix}`;
        const plain = await openStream(ctx, kv, subscribePath(name('a')), 'B.subscribe.subscribe-event');
        const glob = await openStream(ctx, kv, subscribePath(name('a*')), 'B.subscribe.subscribe-event');
        // longer, separator, case; then the glob subscriber's own channel (a neighbour of `a`), then `a`'s.
        for (const suffix of ['ab', 'a:b', 'A', 'a*', 'a']) {
          await sent(publishThrough(kv, 'publish', name(suffix), `to ${suffix}`), `publish to ${suffix}`);
        }
        for (const [stream, own] of [
          [plain, 'a'],
          [glob, 'a*'],
        ] as const) {
          await collectUntil(stream, (seen) => seen.some((event) => event.endsWith(`,to ${own}`)), streamWaitMs());
          const got = stream.seen.filter((event) => event.startsWith('message,'));
          const want = [`message,${name(own)},to ${own}`];
          checkThat(
            'B.subscribe.message-events',
            show(got) === show(want),
            `subscriber of ${JSON.stringify(own)}: ${show(got.map((event) => event.replace(ctx.keyPrefix, '')))}`,
            `only ${show(want.map((event) => event.replace(ctx.keyPrefix, '')))}`,
          );
        }
      },
    },
    {
      id: 'kv.traffic.subscribe-payload-bytes',
      rules: ['B.subscribe.message-events', 'B.path.percent-decoding'],
      covers: [cover('B.subscribe.message-events', { 'byte-class': subscribeClasses })],
      title: 'Every byte class arrives in a message exactly, published through /publish and POST /',
      expect:
        'A payload of each byte class (commas, spaces, %, /, quotes, non-ASCII, NUL, empty, long) arrives once as sent; the order is recorded.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const channel = `${ctx.keyPrefix}bytes`;
        const stream = await openStream(ctx, kv, subscribePath(channel), 'B.subscribe.subscribe-event');
        // Each payload goes by /publish (a path segment) and then by POST / (a JSON string).
        const sentPayloads: { readonly payload: string; readonly route: 'publish' | 'post-root' }[] = [];
        for (const name of subscribeClasses) {
          const payload = byteClassSamples[name] as string;
          // An empty last path segment is not shown to be an argument: the empty payload goes by POST / only.
          for (const route of name === 'empty' ? (['post-root'] as const) : (['publish', 'post-root'] as const)) {
            await sent(publishThrough(kv, route, channel, payload), `${route} ${name}`);
            sentPayloads.push({ payload, route });
          }
        }
        await collectUntil(stream, (seen) => payloadsOf(seen, channel).length >= sentPayloads.length, streamWaitMs());
        const got = payloadsOf(stream.seen, channel);
        // Each payload once, in any order (the spec promises none; the order is recorded).
        const extra = [...got];
        const missing = sentPayloads.filter(({ payload }) => {
          const at = extra.indexOf(payload);
          if (at !== -1) extra.splice(at, 1);
          return at === -1;
        });
        const wrong = missing[0];
        // A /publish payload changed while the same one by POST / arrived intact: the path segment was
        // decoded wrongly (B.path.percent-decoding), the stream itself carried what it got.
        const twin =
          wrong?.route === 'publish' &&
          !missing.some(({ payload, route }) => route === 'post-root' && payload === wrong.payload);
        checkThat(
          twin ? 'B.path.percent-decoding' : 'B.subscribe.message-events',
          missing.length === 0 && extra.length === 0,
          wrong === undefined
            ? `${extra.length} messages more, first ${show(extra[0], 80)}`
            : `no message ${show(wrong.payload, 80)} (${wrong.route})${extra.length > 0 ? `, and ${show(extra[0], 80)} instead` : ''}`,
          missing.length === 0 ? `${sentPayloads.length} messages` : show(wrong?.payload, 80),
        );
        const inOrder = show(got) === show(sentPayloads.map(({ payload }) => payload));
        ctx.observe(inOrder ? 'messages in the order sent' : 'messages out of the order sent');
      },
    },
  ]),
);
