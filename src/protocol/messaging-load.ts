/**
 * What the messaging scenarios share (scenarios/publish-fanout.ts, callback-throughput.ts,
 * notify-fanout.ts): the body each publish carries (its iteration and its send time, read back from
 * what reaches the sink), a name the target accepts for groups, and setup requests sent a few at a
 * time that wait out the plan's rate limit. No Node module: k6 loads the scenarios too.
 */
import { fromBase64 } from './kv/base64.ts';
import { parseJson, type ScenarioAnswer, type ScenarioContext, type Tally } from './scenario.ts';

/** What a publish or notify carries: the iteration's index and the send time (unix ms). */
export interface SentBody {
  readonly i: number;
  readonly t: number;
}

export function sentBody(index: number): string {
  return `{"i":${index},"t":${Date.now()}}`;
}

/** The body read back, or undefined when it is not one of ours. */
export function readSentBody(text: string): SentBody | undefined {
  const json = parseJson(text);
  if (typeof json !== 'object' || json === null) return undefined;
  const { i, t } = json as Record<string, unknown>;
  return Number.isInteger(i) && typeof t === 'number' && Number.isFinite(t) ? { i: i as number, t } : undefined;
}

/** A body the target sent base64 (a callback's `sourceBody`), read back. */
export function readSentBase64(text: unknown): SentBody | undefined {
  if (typeof text !== 'string') return undefined;
  const bytes = fromBase64(text);
  return bytes === undefined ? undefined : readSentBody(new TextDecoder().decode(bytes));
}

/** The run's key prefix as a group or queue name (`[A-Za-z0-9._-]`, at most 100). */
export function groupName(prefix: string, suffix: string): string {
  return `${prefix.replace(/[^A-Za-z0-9._-]/g, '-')}-${suffix}`.slice(-100);
}

/** A 2xx status. */
export const isOk = (answer: ScenarioAnswer | null): answer is ScenarioAnswer =>
  answer !== null && answer.status >= 200 && answer.status < 300;

/** Gateway answers that say nothing of whether the publish behind them was taken. */
const unsaying = new Set([502, 503, 504]);

/**
 * Tells the tally what became of publish `request.meta` (issue 39, the soak's checker): acknowledged
 * when the scenario read `ids` from a success answer, indeterminate when no answer came (or a gateway's
 * 502, 503 or 504), refused for any other answer. The send time is the one its body carries.
 */
export function tellFate(
  tally: Tally,
  request: { readonly body?: string; readonly meta: number },
  answer: ScenarioAnswer | null,
  ids: readonly string[] | undefined,
): void {
  if (tally.fate === undefined) return;
  const sentAt = readSentBody(request.body ?? '')?.t ?? Date.now();
  const fate =
    ids !== undefined ? 'acknowledged' : answer === null || unsaying.has(answer.status) ? 'indeterminate' : 'refused';
  tally.fate(request.meta, fate, sentAt, ids);
}

/** The `messageId` of an answer's object, or of each object of its array; undefined when one lacks it. */
export function messageIds(json: unknown): string[] | undefined {
  const items = Array.isArray(json) ? json : [json];
  const ids: string[] = [];
  for (const item of items) {
    const id = typeof item === 'object' && item !== null ? (item as Record<string, unknown>).messageId : undefined;
    if (typeof id !== 'string') return undefined;
    ids.push(id);
  }
  return ids;
}

type SetupRequest = Parameters<ScenarioContext['send']>[0];

/**
 * Sends every request, `parallel` at a time, each again after a pause while the target answers 429
 * (the plan's requests per second); resolves a rate window after the last 429 when there was one. The
 * answers are judged by their status and dropped: a setup of thousands must not keep what a target
 * sent (at 50 MB an answer, notify-fanout's setup grew past 7 GB). A request still refused
 * after `attempts`, or any other error, rejects: setup fails with the line.
 */
export async function sendAll(
  context: ScenarioContext,
  requests: readonly SetupRequest[],
  what: string,
  parallel = 16,
  attempts = 50,
): Promise<void> {
  let next = 0;
  let throttled = false;
  const worker = async () => {
    while (next < requests.length) {
      const at = next++;
      const request = requests[at] as SetupRequest;
      for (let attempt = 1; ; attempt++) {
        const answer = await context.send(request);
        if (answer.status === 429 && attempt < attempts) {
          throttled = true;
          await pause(200);
          continue;
        }
        if (answer.status < 200 || answer.status >= 300) {
          throw new Error(`${what}: ${request.method} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
        }
        break;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, requests.length) }, worker));
  // The plan's rate was reached: let its window pass, or the load's first requests would be refused.
  if (throttled) await pause(rateWindowMs);
}

/** The plan's rate is per second (spec "Errors": 429); a little more than one window. */
const rateWindowMs = 1100;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
