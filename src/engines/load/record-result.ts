/**
 * How one request's end is recorded, the same in the open and the closed model and on either
 * transport: an error by its class, an answer too long or JSON that is not JSON as garbage, a 2xx as
 * completed with its latency, any other status as failed with an excerpt. Returns what the scenario's
 * checks are shown: the answer, or null when there is no usable one (its outcome is unknown).
 */
import { looksLikeJson } from '../../protocol/json-body.ts';
import type { ScenarioAnswer, ScenarioRequest } from '../../protocol/scenario.ts';
import { excerpt } from '../../shared/excerpt.ts';
import { classifyError } from './error-class.ts';
import type { ExchangeResult } from './exchange.ts';
import type { Recorder } from './recorder.ts';

export function recordResult(
  recorder: Recorder,
  request: ScenarioRequest<unknown>,
  result: ExchangeResult,
  latencyMs: number,
): ScenarioAnswer | null {
  if (result.kind === 'error') {
    const { kind, example } = classifyError(result.error);
    recorder.failed(request.tags, kind, example, result.end);
    return null;
  }
  if (result.kind === 'too-long' || (result.contentType.includes('json') && !looksLikeJson(result.body))) {
    const example =
      result.kind === 'too-long'
        ? `an answer longer than ${result.limit} bytes (the scenario's largest answer with room, or maxAnswerBytes)`
        : `status ${result.status}: a JSON answer that is not JSON`;
    recorder.failed(request.tags, 'garbage', example, result.end);
    return null;
  }
  if (result.status >= 200 && result.status < 300) {
    recorder.completed(request.tags, request.commands, latencyMs, result.end);
  } else {
    recorder.failed(request.tags, 'status', `status ${result.status}: ${excerpt(result.body, 120)}`, result.end);
  }
  return { status: result.status, body: result.body };
}
