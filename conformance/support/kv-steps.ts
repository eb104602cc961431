/**
 * Steps a case takes to arrange state or read it back, through `POST /` (the plainest form) and the
 * Standard token. A step is a means: when it does not succeed the case is blocked, naming
 * `B.root.json-array`, since its own rule could not be checked. A case that runs commands as its own
 * check names its rule (`rule`), and then a step that does not succeed fails that rule.
 */

import { type HttpResponse, jsonBody, means } from '../../src/suite-kit/suite-api.ts';
import { checkItems, checkResult, isRecord, isSuccess, resultOf } from './kv-checks.ts';
import type { JsonArg, KvCallOptions, KvClient } from './kv-client.ts';

export interface StepOptions extends KvCallOptions {
  /** The case's own rule, when the commands are its check; without it a failed step blocks the case. */
  readonly rule?: string;
}

/** Runs one command with `POST /` and returns its result; fails the case when it is not a success. */
export async function step(kv: KvClient, command: readonly JsonArg[], options: StepOptions = {}): Promise<unknown> {
  const res = await kv.root(command, options);
  const context = `step ${String(command[0])}`;
  if (options.rule !== undefined) return resultOf(options.rule, res, context);
  return means(async () => resultOf('B.root.json-array', res, context));
}

/**
 * Runs commands one after another; returns the last one's result. The others are checked as they come
 * and dropped: a target may answer each with megabytes, and a case seeding fifty keys would keep them all.
 */
export async function steps(
  kv: KvClient,
  commands: readonly (readonly JsonArg[])[],
  options: StepOptions = {},
): Promise<unknown> {
  let last: unknown;
  for (const command of commands) last = await step(kv, command, options);
  return last;
}

/**
 * The positive a refusal or a discard is compared with: a valid transaction runs on /multi-exec.
 * When it does not, a case about what /multi-exec refuses is blocked (B.multi-exec.results), never a
 * pass: a missing endpoint answering 400 {error} refuses everything too.
 */
export async function transactionRuns(kv: KvClient, key: string): Promise<void> {
  await means(async () =>
    checkItems(
      'B.multi-exec.results',
      await kv.multiExec([
        ['SET', key, 'tx'],
        ['GET', key],
      ]),
      [{ result: 'OK' }, { result: 'tx' }],
      'a valid transaction first',
    ),
  );
}

/**
 * The positive for a case about the path form: a plain path request (`GET /echo/x`) runs. When it
 * does not, the path form itself is missing (B.methods.allowed), and the case is blocked.
 */
export async function pathFormRuns(kv: KvClient): Promise<void> {
  await means(async () =>
    checkResult(
      'B.methods.allowed',
      await kv.path('GET', ['echo', 'svc']),
      'svc',
      'the path form first (GET /echo/svc)',
    ),
  );
}

/** Whether the path form runs at all (`GET /echo/svc` answers the echo); for checks that use it as one more form. */
export async function pathFormAvailable(kv: KvClient): Promise<boolean> {
  const res = await kv.path('GET', ['echo', 'svc']);
  return isSuccess(res) && resultOf('B.methods.allowed', res) === 'svc';
}

/** Which request forms besides `POST /` run for the Standard token by header (each tried once). */
export interface AvailableForms {
  readonly path: boolean;
  readonly pipeline: boolean;
  readonly multiExec: boolean;
}

export async function availableForms(kv: KvClient): Promise<AvailableForms> {
  const [path, pipeline, multiExec] = await Promise.all([
    pathFormAvailable(kv),
    kv.pipeline([['ECHO', 'svc']]).then((res) => res.status === 200 && isItems(res, 'svc')),
    kv.multiExec([['ECHO', 'svc']]).then((res) => res.status === 200 && isItems(res, 'svc')),
  ]);
  return { path, pipeline, multiExec };
}

function isItems(res: HttpResponse, result: unknown): boolean {
  const body = jsonBody(res);
  return Array.isArray(body) && body.length === 1 && isRecord(body[0]) && body[0].result === result;
}
