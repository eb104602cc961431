/**
 * Steps a case takes to arrange state or read it back, through `POST /` and the Standard token.
 * A step that does not succeed fails the case with the rule of the form it used (`B.root.json-array`
 * unless told), since every later check depends on it.
 */

import { resultOf } from './kv-checks.ts';
import type { JsonArg, KvCallOptions, KvClient } from './kv-client.ts';

export interface StepOptions extends KvCallOptions {
  /** Rule blamed when the step does not succeed. @default 'B.root.json-array' */
  readonly rule?: string;
}

/** Runs one command with `POST /` and returns its result; fails the case when it is not a success. */
export async function step(kv: KvClient, command: readonly JsonArg[], options: StepOptions = {}): Promise<unknown> {
  const res = await kv.root(command, options);
  return resultOf(options.rule ?? 'B.root.json-array', res, `step ${String(command[0])}`);
}

/** Runs commands one after another; returns their results. */
export async function steps(
  kv: KvClient,
  commands: readonly (readonly JsonArg[])[],
  options: StepOptions = {},
): Promise<unknown[]> {
  const results: unknown[] = [];
  for (const command of commands) results.push(await step(kv, command, options));
  return results;
}
