/**
 * One request per area before a run, with a short timeout, so a target that is down, refuses,
 * stalls or answers garbage gives one clear line fast instead of a suite full of timeouts.
 */

import { dispatcherFor, httpRequest, isLongAnswer } from '../../http/http-client.ts';
import { type HarnessError, harnessError, isHarnessError } from '../../shared/errors.ts';
import { probeRequest } from '../../target/areas.ts';
import type { Target, TargetArea } from '../../target/target.ts';

export const probeTimeoutMs = 3_000;

/** What the probe reads of an answer (a target answering 50 MB to it cost the run 150 MB before any case). */
const probeAnswerBytes = 64 * 1024;

/** Undefined when every area answers HTTP; else the first problem, naming the target and area. */
export async function probeTarget(
  target: Target,
  areas: readonly TargetArea[],
  timeoutMs = probeTimeoutMs,
): Promise<HarnessError | undefined> {
  for (const area of areas) {
    const request = probeRequest(target, area);
    if (!request) continue;
    try {
      // Only "is this HTTP" is asked: an answer longer than the probe reads is one.
      await httpRequest({
        ...request,
        method: 'GET',
        timeoutMs,
        dispatcher: dispatcherFor(target.tls),
        maxAnswerBytes: probeAnswerBytes,
      });
    } catch (error) {
      if (isLongAnswer(error)) continue;
      const message = error instanceof Error ? error.message : String(error);
      const code = isHarnessError(error) ? error.code : 'SVC_TARGET_UNREACHABLE';
      return harnessError(code, `target "${target.name}" (${area}): ${message}`, error);
    }
  }
  return undefined;
}
