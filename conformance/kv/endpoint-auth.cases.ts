/**
 * Credentials × every endpoint (issue 20, coverage by construction; spec "Authentication", area B):
 * the streams (/monitor, /subscribe/{channel}), /publish and /info with the Standard token by header
 * and by `_token`, none, and a wrong one both ways; a wrong `_token` on every command form (the
 * combination matrix sends a wrong token by header); the Read Only token refused a write on every
 * form that carries one. Each refusal comes after its positive: the same endpoint answers the
 * Standard token.
 */
import {
  type CaseContext,
  defineCases,
  fromBase64,
  type HttpResponse,
  means,
  publishPath,
  requestTimeoutMs,
  show,
  subscribePath,
} from '../../src/suite-kit/suite-api.ts';
import { cover } from '../rules/dimensions.ts';
import { type BatchCell, runCells } from '../support/cell-batch.ts';
import { type Credentials, wrongToken } from '../support/credentials.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import {
  checkContentType,
  checkErrorBody,
  checkHeadContentType,
  checkNotSuccess,
  checkResult,
  checkResultShape,
  checkStatus,
  checkThat,
  checkUnauthorized,
  describe,
  mediaType,
  resultOf,
} from '../support/kv-checks.ts';
import { createKvClient, type KvCallOptions, type KvClient } from '../support/kv-client.ts';
import { ranCommand, sendThrough } from '../support/kv-forms.ts';
import { requestForms } from '../support/kv-oracle.ts';
import { step } from '../support/kv-steps.ts';
import { nextEvent, openKvStream } from '../support/kv-streams.ts';

type CredentialCell = 'none' | 'wrong-header' | 'wrong-query' | 'standard-header' | 'standard-query';

const credentialsOf: Record<CredentialCell, Credentials> = {
  none: { kind: 'none' },
  'wrong-header': { kind: 'wrong' },
  'wrong-query': { kind: 'token', token: wrongToken, via: 'query' },
  'standard-header': { kind: 'bearer' },
  'standard-query': { kind: 'query' },
};

const ruleOf: Record<CredentialCell, string> = {
  none: 'B.auth.missing-401',
  'wrong-header': 'B.auth.invalid-401',
  'wrong-query': 'B.auth.invalid-401',
  'standard-header': 'B.auth.bearer',
  'standard-query': 'B.auth.query-token',
};

const allCredentials = Object.keys(credentialsOf) as CredentialCell[];
const refused = (cell: CredentialCell) => cell === 'none' || cell.startsWith('wrong');

/**
 * A 401 under the credentials' rule, with an {error} object under the body's rule: a right status with a
 * text/plain "Unauthorized" breaks the Error object (B.response.error-shape), not the auth rule. The
 * object is JSON, so labelled application/json (B.format.json, in checkErrorBody); its text is recorded
 * (B.observe.unauthorized-text: the one position on a 401's text, kv-checks checkUnauthorized).
 */
function refusedUnauthorized(ctx: CaseContext, rule: string, res: HttpResponse, where: string): void {
  checkUnauthorized(rule, res, where, ctx.observe);
}

/** How long a stream is waited on: the run's request timeout (10 s, or --timeout). */
const streamWaitMs = (): number => requestTimeoutMs();

/** The stream endpoints: open with the credentials; a refusal is read again as a plain answer for its body. */
function streamCells(ctx: CaseContext, kv: KvClient, endpoint: 'monitor' | 'subscribe'): BatchCell[] {
  const path = endpoint === 'monitor' ? '/monitor' : subscribePath(`${ctx.keyPrefix}auth`);
  return allCredentials.map((cell) => ({
    name: `${endpoint} ${cell}`,
    async check() {
      const rule = ruleOf[cell];
      const stream = await openKvStream(ctx, kv, path, credentialsOf[cell]);
      const type = mediaType(stream) ?? 'no content type';
      if (!refused(cell)) {
        checkThat(
          rule,
          stream.status === 200 && type === 'text/event-stream',
          `status ${stream.status}, ${type}`,
          'status 200, text/event-stream',
        );
        const first = await nextEvent(stream, streamWaitMs());
        checkThat(rule, first !== undefined, `no event within ${streamWaitMs() / 1000} s`, 'the first event');
        stream.close();
        return undefined;
      }
      stream.close();
      checkThat(rule, stream.status === 401, `status ${stream.status}, ${type}`, 'status 401');
      // Refused, so no stream: the same request as a plain one gives the error body to check.
      const res = await kv.raw({
        method: 'POST',
        path,
        credentials: credentialsOf[cell],
        headers: { accept: 'text/event-stream' },
      });
      refusedUnauthorized(ctx, rule, res, `${endpoint}, read as a plain answer`);
      return undefined;
    },
  }));
}

function plainCells(ctx: CaseContext, kv: KvClient, endpoint: 'publish' | 'info'): BatchCell[] {
  const path = endpoint === 'publish' ? publishPath(`${ctx.keyPrefix}nobody`, 'hello') : '/info';
  return allCredentials.map((cell) => ({
    name: `${endpoint} ${cell}`,
    async check() {
      const rule = ruleOf[cell];
      const res = await kv.raw({ method: 'POST', path, credentials: credentialsOf[cell] });
      if (refused(cell)) return void refusedUnauthorized(ctx, rule, res, endpoint);
      checkContentType('B.format.json', res, 'application/json', endpoint);
      // Spec: both answer "JSON result"; what it holds is not shown (B.observe.publish-result, info-result).
      checkResultShape(rule, resultOf(rule, res, endpoint), endpoint);
      return undefined;
    },
  }));
}

// Every form that carries a command: the header matrix's own list.
const commandForms = requestForms;

const requirements: Requirements = {
  'kv.endpoint-auth.streams': ['root-form', 'monitor-stream'],
  'kv.endpoint-auth.publish-info': ['root-form'],
  '*': ['root-form', 'percent-decoding'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.endpoint-auth.streams',
      // B.response.error-shape: a 401's body is judged as an Error object (checkUnauthorized).
      rules: [
        'B.auth.bearer',
        'B.auth.query-token',
        'B.auth.missing-401',
        'B.auth.invalid-401',
        'B.response.error-shape',
        'B.format.json',
        'B.observe.unauthorized-text',
      ],
      covers: [
        cover('B.format.json', { endpoint: ['monitor', 'subscribe'] }),
        cover('B.auth.bearer', { endpoint: ['monitor', 'subscribe'] }),
        cover('B.auth.query-token', { endpoint: ['monitor', 'subscribe'] }),
        cover('B.auth.missing-401', { endpoint: ['monitor', 'subscribe'] }),
        cover('B.auth.invalid-401', {
          endpoint: ['monitor', 'subscribe'],
          credentials: ['wrong-header', 'wrong-query'],
        }),
      ],
      title: '/monitor and /subscribe/{channel} check the token like every other endpoint',
      expect:
        'The Standard token by header or _token opens each stream (200, text/event-stream, a first event); none or a wrong one (header or _token) answers 401 with an {error} object.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        // The positives: each stream opens for the Standard token by header as an event stream (a 200
        // with JSON is no stream: the cells would then blame the credentials for the stream's own rule).
        await means(async () => {
          for (const path of ['/monitor', subscribePath(`${ctx.keyPrefix}auth`)]) {
            const stream = await openKvStream(ctx, kv, path);
            const rule = path === '/monitor' ? 'B.monitor.first-ok' : 'B.subscribe.subscribe-event';
            const type = mediaType(stream) ?? 'no content type';
            checkThat(
              rule,
              stream.status === 200 && type === 'text/event-stream',
              `${path}: status ${stream.status}, ${type}`,
              'status 200, text/event-stream',
            );
            stream.close();
          }
        });
        await runCells(ctx, [...streamCells(ctx, kv, 'monitor'), ...streamCells(ctx, kv, 'subscribe')]);
      },
    },
    {
      id: 'kv.endpoint-auth.publish-info',
      rules: [
        'B.auth.bearer',
        'B.auth.query-token',
        'B.auth.missing-401',
        'B.auth.invalid-401',
        'B.response.error-shape',
        'B.observe.unauthorized-text',
        'B.publish.result',
        'B.info.result',
        'B.format.json',
        'B.encoding.base64',
      ],
      covers: [
        cover('B.auth.bearer', { endpoint: ['publish', 'info'] }),
        cover('B.auth.query-token', { endpoint: ['publish', 'info'] }),
        cover('B.auth.missing-401', { endpoint: ['publish', 'info'] }),
        cover('B.auth.invalid-401', { endpoint: ['publish', 'info'], credentials: ['wrong-header', 'wrong-query'] }),
        cover('B.format.json', { endpoint: ['publish', 'info'] }),
        cover('B.encoding.base64', { endpoint: ['info'] }),
      ],
      title: '/publish/{channel}/{message} and /info check the token like every other endpoint',
      expect:
        'The Standard token by header or _token gets the JSON result; none or a wrong one (header or _token) answers 401 with an {error} object.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        // The positives: each endpoint answers the Standard token a result of a shape the spec allows,
        // else every credential cell would blame its auth rule for the endpoint's own rule.
        await means(async () => {
          const publish = await kv.raw({ method: 'POST', path: publishPath(`${ctx.keyPrefix}nobody`, 'x') });
          checkResultShape('B.publish.result', resultOf('B.publish.result', publish, '/publish'), '/publish');
          const info = await kv.raw({ method: 'POST', path: '/info' });
          checkResultShape('B.info.result', resultOf('B.info.result', info, '/info'), '/info');
        });
        const infoBase64: BatchCell = {
          name: 'info base64',
          async check() {
            const plain = resultOf('B.info.result', await kv.raw({ method: 'POST', path: '/info' }));
            const encoded = resultOf(
              'B.encoding.base64',
              await kv.raw({ method: 'POST', path: '/info', encoding: 'base64' }),
            );
            // /info's result is any legal result (B.info.result), and it changes between calls (uptime,
            // counters): its first string (the text's first line, or an array's first item) is compared;
            // integers and nulls are never encoded, so only their kind is.
            const firstString = (value: unknown): string | undefined =>
              typeof value === 'string'
                ? value
                : Array.isArray(value)
                  ? value.find((item) => typeof item === 'string')
                  : undefined;
            const plainFirst = firstString(plain);
            if (plainFirst === undefined) {
              checkThat(
                'B.encoding.base64',
                typeof encoded === typeof plain,
                `/info under base64: ${show(encoded, 60)}`,
                `a result like ${show(plain, 60)}`,
              );
              return undefined;
            }
            const firstLine = plainFirst.split(/\r?\n/)[0] ?? '';
            const encodedFirst = firstString(encoded);
            const decoded = encodedFirst === undefined ? undefined : fromBase64(encodedFirst);
            checkThat(
              'B.encoding.base64',
              decoded !== undefined && Buffer.from(decoded).toString('utf8').startsWith(firstLine),
              `/info under base64: ${show(encoded, 60)}`,
              `the base64 of the text, which begins ${JSON.stringify(firstLine)}`,
            );
            return undefined;
          },
        };
        await runCells(ctx, [...plainCells(ctx, kv, 'publish'), ...plainCells(ctx, kv, 'info'), infoBase64]);
      },
    },
    {
      id: 'kv.endpoint-auth.wrong-query-token',
      rules: ['B.auth.invalid-401', 'B.response.error-shape', 'B.format.json'],
      covers: [cover('B.auth.invalid-401', { endpoint: [...commandForms], credentials: ['wrong-query'] })],
      title: 'A wrong _token is refused on every command form',
      expect:
        'Each form (path with GET, HEAD, POST, PUT; POST body; POST /; /pipeline; /multi-exec) answers 401 (with an {error} object where there is a body) and runs nothing.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const wrong: KvCallOptions = { credentials: credentialsOf['wrong-query'] };
        await runCells(
          ctx,
          commandForms.map((form) => ({
            name: form,
            async check() {
              const key = keys.key(`wq:${form}`);
              const res = await sendThrough(kv, form, ['set', key, 'written'], wrong);
              if (res.status !== 401) {
                // A form the target lacks answers every token alike (404): its absence is its own case's
                // failure (B.methods.allowed, B.post.body-last-arg, B.multi-exec.results), not this rule's.
                const positive = await sendThrough(kv, form, ['set', keys.key(`wq-positive:${form}`), 'v'], {});
                const runs = form === 'head-path' ? positive.status === 200 : ranCommand(positive);
                if (!runs) return `${form} does not run with the Standard token: not checked there`;
              }
              checkStatus('B.auth.invalid-401', res, 401, form);
              if (form !== 'head-path') checkErrorBody('B.response.error-shape', res, form);
              // A HEAD refusal has no body; a label it sends is the JSON error's.
              else checkHeadContentType(res, 'application/json', 'B.format.json', form);
              const after = await step(kv, ['GET', key]);
              checkThat(
                'B.auth.invalid-401',
                after === null,
                `the key then holds ${JSON.stringify(after)}`,
                'the key never written',
              );
              return undefined;
            },
          })),
        );
      },
    },
    {
      id: 'kv.endpoint-auth.read-only-writes',
      rules: ['B.auth.read-only.writes-refused', 'B.observe.read-only-refusal'],
      needs: ['kv.readOnlyToken'],
      covers: [cover('B.auth.read-only.writes-refused', { endpoint: [...commandForms, 'publish'] })],
      title: 'The Read Only token is refused a write on every form that carries one',
      expect:
        'SET through each form (path with GET, HEAD, POST, PUT; POST body; POST /; a /pipeline item; a /multi-exec item) and PUBLISH through /publish do not succeed, and the key stays unwritten.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const readOnly: KvCallOptions = { credentials: { kind: 'read-only' } };
        // The positive: the same token reads.
        const probe = keys.key('ro:probe');
        await step(kv, ['SET', probe, 'readable']);
        await means(async () =>
          checkResult('B.auth.read-only.reads', await kv.root(['GET', probe], readOnly), 'readable'),
        );
        const statuses = new Map<number, string[]>();
        const note = (status: number, name: string) => statuses.set(status, [...(statuses.get(status) ?? []), name]);
        await runCells(ctx, [
          ...commandForms.map((form) => ({
            name: form,
            async check() {
              const key = keys.key(`ro:${form}`);
              const res = await sendThrough(kv, form, ['set', key, 'written'], readOnly);
              note(res.status, form);
              if (form !== 'head-path')
                checkThat(
                  'B.auth.read-only.writes-refused',
                  !ranCommand(res),
                  describe(res),
                  'a refusal, not a result',
                );
              const after = await step(kv, ['GET', key]);
              checkThat(
                'B.auth.read-only.writes-refused',
                after === null,
                `${form}: the key then holds ${JSON.stringify(after)}`,
                'the key never written',
              );
              return undefined;
            },
          })),
          {
            name: 'publish',
            async check() {
              const res = await kv.raw({
                method: 'POST',
                path: publishPath(`${ctx.keyPrefix}ro`, 'hello'),
                ...readOnly,
              });
              note(res.status, 'publish');
              checkNotSuccess('B.auth.read-only.writes-refused', res, '/publish with the Read Only token');
              return undefined;
            },
          },
        ]);
        ctx.observe(
          `Read Only write refusals: ${[...statuses].map(([status, forms]) => `${status} (${forms.join(', ')})`).join('; ')}`,
        );
      },
    },
  ]),
);
