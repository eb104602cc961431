/**
 * Before a load run's first request: every area its scenarios load answers HTTP (the probe conformance
 * makes), and the key-value area takes the token (an authenticated PING, the cheapest request the spec
 * shows). A target that is down, stalls, answers garbage or refuses the token stops the run in one line,
 * as conformance does, instead of sending every request of every scenario into the same failure.
 */
import { dispatcherFor, httpRequest } from '../../http/http-client.ts';
import { type HarnessError, harnessError } from '../../shared/errors.ts';
import { probeRequest } from '../../target/areas.ts';
import type { Target, TargetArea } from '../../target/target.ts';
import { probeTarget, probeTimeoutMs } from '../conformance/probe-target.ts';

/** The first reason `target` cannot carry a load of `areas`, or undefined when it can. */
export async function unusableTarget(target: Target, areas: readonly TargetArea[]): Promise<HarnessError | undefined> {
  const unreachable = await probeTarget(target, areas);
  if (unreachable !== undefined) return unreachable;
  const ping = areas.includes('kv') ? probeRequest(target, 'kv') : undefined;
  if (ping === undefined) return undefined;
  const answer = await httpRequest({
    ...ping,
    method: 'GET',
    timeoutMs: probeTimeoutMs,
    dispatcher: dispatcherFor(target.tls),
    maxAnswerBytes: 64 * 1024,
  }).catch(() => undefined);
  if (answer === undefined || (answer.status !== 401 && answer.status !== 403)) return undefined;
  return harnessError(
    'SVC_TARGET_AUTH',
    `target "${target.name}" (kv): the token was refused (${answer.status} to an authenticated PING): check kv.token in the target file or SVC_KV_TOKEN`,
  );
}
