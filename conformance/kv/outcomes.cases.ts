/**
 * What comes back, outcome by outcome, in every request form (issue 35, item 5; spec "Errors" and
 * "Endpoints > Area B"): a command that runs, one the store refuses at run time (WRONGTYPE), one with a
 * wrong argument count, an unknown one, and a request without a token. Each outcome is one case over
 * the forms (cells of B.outcome.by-form, endpoint × kv-outcome), judged by one oracle written from the
 * spec: 200 {result}; 400 {error} on a one-command form; an {error} item in its place, status 200, inside
 * /pipeline and /multi-exec for a run-time failure; a discarded /multi-exec for a malformed or unknown
 * command; 401 {error} everywhere. A failure is only judged after the form's positive: the same form
 * runs a valid command (else the form's own case fails, not this one).
 */
import {
  type CaseContext,
  type ConformanceCase,
  defineCases,
  type HttpResponse,
  publishPath,
  subscribePath,
} from '../../src/suite-kit/suite-api.ts';
import { cover, type DimensionValue } from '../rules/dimensions.ts';
import { type BatchCell, runCells } from '../support/cell-batch.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import {
  checkDiscarded,
  checkError,
  checkHeadContentType,
  checkItems,
  checkResult,
  checkStatus,
  checkThat,
  checkUnauthorized,
  mediaType,
  resultOf,
} from '../support/kv-checks.ts';
import { createKvClient, type KvClient } from '../support/kv-client.ts';
import { oneCommandForms, ranCommand, sendThrough } from '../support/kv-forms.ts';
import { type RequestForm, requestForms } from '../support/kv-oracle.ts';
import { step } from '../support/kv-steps.ts';
import { openKvStream } from '../support/kv-streams.ts';

// Command names go in lower case: the path form's name case is not shown (silence path-command-lower-case).
const rule = 'B.outcome.by-form';
type Outcome = DimensionValue<'kv-outcome'>;
type Endpoint = DimensionValue<'endpoint'>;

const isOneCommand = (form: RequestForm): boolean => (oneCommandForms as readonly string[]).includes(form);

/**
 * The positive a failure is compared with: the form runs `ECHO` (a form the target lacks refuses
 * everything alike, and that is its own case's failure: B.methods.allowed, B.post.body-last-arg, …).
 */
async function formRuns(kv: KvClient, form: RequestForm): Promise<boolean> {
  const res = await sendThrough(kv, form, ['echo', 'svc-outcome']);
  return form === 'head-path' ? res.status === 200 : ranCommand(res);
}

const notRun = (form: Endpoint) => `${form} does not run a valid command: the outcome is not judged there`;

/** A route the target does not serve at all: its own case's failure (B.methods.allowed, B.publish.result, …). */
const unserved = (res: { readonly status: number }) => res.status === 404 || res.status === 405;

/** A one-command form's failure: 400 and the {error} object (a HEAD answer: the status, a JSON label). */
function checkFailed(ctx: CaseContext, form: RequestForm, res: HttpResponse, what: string): void {
  const context = `${what} through ${form}`;
  if (form === 'head-path') {
    checkStatus(rule, res, 400, context);
    checkHeadContentType(res, 'application/json', 'B.format.json', context);
    return;
  }
  checkError(rule, res, { context, observe: ctx.observe });
}

/** A command that runs: 200 and its {result}, an item on /pipeline and /multi-exec; then it took effect. */
function successCells(ctx: CaseContext, kv: KvClient): BatchCell[] {
  const keys = keySpace(ctx, kv);
  const forms = requestForms.map(
    (form): BatchCell => ({
      name: `success ${form}`,
      async check() {
        const key = keys.key(`ok:${form}`);
        const res = await sendThrough(kv, form, ['set', key, 'ran']);
        if (unserved(res)) return notRun(form);
        if (form === 'head-path') checkStatus(rule, res, 200, 'SET through head-path');
        else if (isOneCommand(form)) checkResult(rule, res, 'OK', `SET through ${form}`);
        else checkItems(rule, res, [{ result: 'OK' }], `SET through ${form}`);
        checkThat(rule, (await step(kv, ['GET', key])) === 'ran', `${form}: SET left no value`, 'the SET ran');
        return undefined;
      },
    }),
  );
  const plain = (endpoint: 'publish' | 'info', path: string): BatchCell => ({
    name: `success ${endpoint}`,
    async check() {
      const res = await kv.raw({ method: 'POST', path });
      if (unserved(res)) return notRun(endpoint);
      // Spec: both answer "JSON result": 200 and {result}; the value's shape is B.publish.result's and
      // B.info.result's, what it holds is not shown (B.observe.publish-result, B.observe.info-result).
      resultOf(rule, res, endpoint);
      return undefined;
    },
  });
  return [...forms, plain('publish', publishPath(`${ctx.keyPrefix}outcome`, 'hello')), plain('info', '/info')];
}

/** WRONGTYPE: GET of a list. One-command forms 400 {error}; an {error} item in place on the others, the rest run. */
function storeErrorCells(ctx: CaseContext, kv: KvClient): BatchCell[] {
  const keys = keySpace(ctx, kv);
  return requestForms.map((form) => ({
    name: `store-error ${form}`,
    async check() {
      if (!(await formRuns(kv, form))) return notRun(form);
      const list = keys.key(`list:${form}`);
      await step(kv, ['RPUSH', list, 'item']);
      const what = 'GET of a list (WRONGTYPE)';
      if (isOneCommand(form)) return void checkFailed(ctx, form, await sendThrough(kv, form, ['get', list]), what);
      const after = keys.key(`after:${form}`);
      const commands = [
        ['GET', list],
        ['SET', after, 'ran'],
      ];
      const res = form === 'pipeline' ? await kv.pipeline(commands) : await kv.multiExec(commands);
      // "individual command errors inside pipelines and transactions still arrive with 200 as per-item
      // error objects"; /multi-exec: "A valid command that fails at run time does not discard the transaction".
      checkItems(rule, res, [{ error: true }, { result: 'OK' }], `${what} then SET, through ${form}`);
      checkThat(rule, (await step(kv, ['GET', after])) === 'ran', `${form}: the SET after it did not run`, 'ran');
      return undefined;
    },
  }));
}

/**
 * A malformed (wrong argument count) or unknown command: 400 {error} on a one-command form; a discarded
 * /multi-exec (one {error}, nothing ran; its status is B.observe.discard-status); inside /pipeline an
 * {error}: its item (status 200, the others run) or the request's 400, the spec does not say which.
 */
function refusedCells(ctx: CaseContext, kv: KvClient, outcome: 'syntax-error' | 'unknown-command'): BatchCell[] {
  const keys = keySpace(ctx, kv);
  return requestForms.map((form) => ({
    name: `${outcome} ${form}`,
    async check() {
      if (!(await formRuns(kv, form))) return notRun(form);
      const target = keys.key(`${outcome}:${form}`);
      const [command, what] =
        outcome === 'syntax-error'
          ? [['get', target, 'extra'], 'GET with two arguments']
          : [['nosuchcommand', target], 'an unknown command'];
      if (isOneCommand(form)) return void checkFailed(ctx, form, await sendThrough(kv, form, command), what);
      const [before, after] = [keys.key(`${outcome}:before:${form}`), keys.key(`${outcome}:after:${form}`)];
      if (form === 'multi-exec') {
        const res = await kv.multiExec([['SET', before, 'v'], command]);
        checkDiscarded(rule, res, `${what} in a transaction`, ctx.observe);
        const ran = await step(kv, ['EXISTS', before]);
        checkThat(rule, ran === 0, `${what}: the SET before it ran`, 'the whole transaction discarded');
        return `${outcome} discards /multi-exec with status ${res.status}`;
      }
      const res = await kv.pipeline([['SET', before, 'v'], command, ['SET', after, 'v']]);
      if (res.status !== 200) {
        checkError(rule, res, { context: `${what} in a pipeline`, observe: ctx.observe });
        return `${outcome} in a /pipeline: the request's error, status ${res.status}`;
      }
      checkItems(rule, res, [{ result: 'OK' }, { error: true }, { result: 'OK' }], `${what} in a pipeline`);
      const ran = await step(kv, ['EXISTS', after]);
      checkThat(rule, ran === 1, `${what}: the SET after it did not run`, 'one failing command stops nothing');
      return `${outcome} in a /pipeline: an {error} item in its place, status 200`;
    },
  }));
}

/** No token: 401 and the {error} object on every endpoint, the streams included; nothing runs. */
function unauthorizedCells(ctx: CaseContext, kv: KvClient): BatchCell[] {
  const keys = keySpace(ctx, kv);
  const none = { credentials: { kind: 'none' } } as const;
  const forms = requestForms.map(
    (form): BatchCell => ({
      name: `unauthorized ${form}`,
      async check() {
        if (!(await formRuns(kv, form))) return notRun(form);
        const key = keys.key(`none:${form}`);
        const res = await sendThrough(kv, form, ['set', key, 'written'], none);
        if (form === 'head-path') {
          checkStatus(rule, res, 401, form);
          checkHeadContentType(res, 'application/json', 'B.format.json', form);
        } else checkUnauthorized(rule, res, form, ctx.observe);
        checkThat(rule, (await step(kv, ['GET', key])) === null, `${form}: the key was written`, 'nothing runs');
        return undefined;
      },
    }),
  );
  const streams = (['monitor', 'subscribe'] as const).map(
    (endpoint): BatchCell => ({
      name: `unauthorized ${endpoint}`,
      async check() {
        const path = endpoint === 'monitor' ? '/monitor' : subscribePath(`${ctx.keyPrefix}outcome`);
        // The positive: the stream opens for the Standard token (else its own case fails, not this one).
        const positive = await openKvStream(ctx, kv, path);
        positive.close();
        if (positive.status !== 200) return notRun(endpoint);
        const stream = await openKvStream(ctx, kv, path, none.credentials);
        stream.close();
        checkThat(rule, stream.status === 401, `status ${stream.status}, ${mediaType(stream) ?? 'no type'}`, '401');
        // Refused, so no stream: the same request as a plain one gives the body to judge.
        const res = await kv.raw({ method: 'POST', path, headers: { accept: 'text/event-stream' }, ...none });
        checkUnauthorized(rule, res, endpoint, ctx.observe);
        return undefined;
      },
    }),
  );
  const plain = (['publish', 'info'] as const).map(
    (endpoint): BatchCell => ({
      name: `unauthorized ${endpoint}`,
      async check() {
        const path = endpoint === 'publish' ? publishPath(`${ctx.keyPrefix}outcome`, 'hello') : '/info';
        if (unserved(await kv.raw({ method: 'POST', path }))) return notRun(endpoint);
        checkUnauthorized(rule, await kv.raw({ method: 'POST', path, ...none }), endpoint, ctx.observe);
        return undefined;
      },
    }),
  );
  return [...forms, ...streams, ...plain];
}

interface OutcomeRow {
  readonly outcome: Outcome;
  readonly endpoints: readonly Endpoint[];
  readonly rules: readonly string[];
  readonly title: string;
  readonly expect: string;
  readonly cells: (ctx: CaseContext, kv: KvClient) => BatchCell[];
}

const errorRules = ['B.response.error-shape', 'B.errors.class-token', 'B.format.json', 'B.observe.error-class'];

const rows: readonly OutcomeRow[] = [
  {
    outcome: 'success',
    endpoints: [...requestForms, 'publish', 'info'],
    rules: [],
    title: 'A command that runs answers 200 with its result in every form',
    expect:
      'SET through each form answers 200 and {"result":"OK"} (an item on /pipeline and /multi-exec; a HEAD answer its status) and the value is written; /publish and /info answer 200 with a result.',
    cells: successCells,
  },
  {
    outcome: 'store-error',
    endpoints: requestForms,
    rules: errorRules,
    title:
      'A command the store refuses at run time: 400 alone, an error item in place inside /pipeline and /multi-exec',
    expect:
      'GET of a list answers 400 with {"error"} through each one-command form; inside /pipeline and /multi-exec it is an {error} item in its place, status 200, and the SET after it runs.',
    cells: storeErrorCells,
  },
  {
    outcome: 'syntax-error',
    endpoints: requestForms,
    rules: [...errorRules, 'B.observe.discard-status'],
    title: 'A wrong argument count: 400 alone, the whole /multi-exec discarded, an error inside /pipeline',
    expect:
      'GET with two arguments answers 400 with {"error"} through each one-command form, discards a transaction whole (one {error}, the SET before it not run), and is an {error} in a pipeline (its item, the rest run, or the request’s 400: recorded).',
    cells: (ctx, kv) => refusedCells(ctx, kv, 'syntax-error'),
  },
  {
    outcome: 'unknown-command',
    endpoints: requestForms,
    rules: [...errorRules, 'B.observe.discard-status'],
    title: 'An unknown command: 400 alone, the whole /multi-exec discarded, an error inside /pipeline',
    expect:
      'NOSUCHCOMMAND answers 400 with {"error"} through each one-command form, discards a transaction whole, and is an {error} in a pipeline (its item, the rest run, or the request’s 400: recorded).',
    cells: (ctx, kv) => refusedCells(ctx, kv, 'unknown-command'),
  },
  {
    outcome: 'unauthorized',
    endpoints: [...requestForms, 'monitor', 'subscribe', 'publish', 'info'],
    rules: ['B.response.error-shape', 'B.format.json', 'B.observe.unauthorized-text'],
    title: 'A request without a token answers 401 with an error object on every endpoint',
    expect:
      'SET through each form, /monitor, /subscribe, /publish and /info without a token answer 401 with {"error"} (a HEAD answer its status), and nothing is written.',
    cells: unauthorizedCells,
  },
];

function outcomeCase(row: OutcomeRow): ConformanceCase {
  return {
    id: `kv.outcome.${row.outcome}`,
    rules: [rule, ...row.rules],
    covers: [cover(rule, { endpoint: row.endpoints, 'kv-outcome': [row.outcome] })],
    title: row.title,
    expect: row.expect,
    async run(ctx) {
      const kv = createKvClient(ctx);
      await runCells(ctx, row.cells(ctx, kv));
    },
  };
}

const requirements: Requirements = {
  '*': ['root-form'],
};

export const cases = withRequirements(requirements, defineCases(rows.map(outcomeCase)));
