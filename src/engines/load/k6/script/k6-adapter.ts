/**
 * Runs inside k6, not Node: the scenario API (src/protocol/scenario.ts) mapped onto k6. Each
 * iteration builds the scenario's request, sends it with `k6/http` to its area's base URL with that
 * area's credentials and its `Svc-…` headers renamed into the dialect (the request's tags become k6
 * tags, so k6's thresholds select by them), and hands the answer to the scenario's `check`, whose
 * outcomes become k6 checks, whose tallies a k6 counter and whose marks (`accepted`) a k6 metric the
 * harness's sink accounts from. The generated entry (k6-entry.ts) imports
 * this module and the scenario modules and exports what k6 looks for.
 *
 * Like scenarios/, this folder may import no Node module: biome enforces it.
 */
import { check } from 'k6';
import encoding from 'k6/encoding';
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
import { dialectHeaders, specHeaderPrefix } from '../../../../protocol/dialect-headers.ts';
import { looksLikeJson } from '../../../../protocol/json-body.ts';
import {
  type Iteration,
  type PublishFate,
  type Scenario,
  type ScenarioAnswer,
  type ScenarioContext,
  type SinkUrls,
  seededRandom,
} from '../../../../protocol/scenario.ts';
import {
  type AnswerCap,
  type AnswerFate,
  AnswerReading,
  boundedFate,
  contentLength,
  judgedUnreadCounter,
  unreadCounter,
} from './answer-reading.ts';
import {
  commandsTag,
  fateMetadata,
  garbageLimitTag,
  garbageStatusTag,
  type K6Config,
  type K6ScenarioConfig,
  k6Metrics,
} from './k6-config.ts';

type States = Record<string, unknown>;

export interface K6Script {
  readonly options: Readonly<Record<string, unknown>>;
  setup(): Promise<States>;
  teardown(states: States): Promise<void>;
  /** One iteration of the named scenario (k6's `exec` function for it). */
  iterate(name: string, states: States): void;
}

/**
 * A stream of its own for every iteration, the seed mixed with the index: the same requests on any
 * number of segments or runners (not the node engine's stream, which is one per thread).
 */
function iterationRandom(seed: number, index: number): () => number {
  return seededRandom((Math.imul(seed, 0x9e3779b1) + index) >>> 0);
}

/**
 * The credentials of an area's requests: a local run's `SVC_K6_HEADERS` (the harness runs one
 * scenario, so one area, per k6 process), or a k6-operator pod's tokens from its Secret, one per area.
 */
function headersFromEnv(area: 'kv' | 'messaging'): Record<string, string> {
  const headers: Record<string, string> = {};
  const given = __ENV.SVC_K6_HEADERS;
  if (given) Object.assign(headers, JSON.parse(given) as Record<string, string>);
  const token = area === 'messaging' ? __ENV.SVC_K6_MESSAGING_TOKEN : __ENV.SVC_K6_TOKEN;
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

/** load-target.ts's cap on one answer, for a bundle's scenario that declares no largest answer. */
const defaultMaxAnswerBytes = 100 * 1024 * 1024;

/**
 * The text of an answer within the cap (answer-reading.ts says why answers are read as bytes): the same
 * string 'text' makes (Go's string of the bytes, as the
 * JS runtime takes it; invalid UTF-8 as 'text' shows it). `b64decode(…, 's')` is the one call in k6
 * that turns bytes into a string that way; the round trip costs two passes over a body no longer than
 * the cap (answers a check can pass are bytes to kilobytes).
 */
function textOf(body: unknown): string {
  if (!(body instanceof ArrayBuffer) || body.byteLength === 0) return '';
  return encoding.b64decode(encoding.b64encode(body), 'std', 's');
}

/** An answer's size in bytes as read (0 for none). */
const sizeOf = (body: unknown): number => (body instanceof ArrayBuffer ? body.byteLength : 0);

/**
 * One publish's fate as a `svc_fate` sample at its answer (k6-config.ts): the fate a tag of three
 * values, the rest the sample's metadata, set on the VU for this one sample (a VU runs one iteration
 * at a time: no other sample of it is added between the set and the delete).
 */
function tellFate(
  fates: Counter,
  index: number,
  fate: PublishFate,
  sentAt: number,
  ids: readonly string[] | undefined,
): void {
  const metadata = exec.vu.metrics.metadata;
  metadata[fateMetadata.index] = String(index);
  metadata[fateMetadata.sentAt] = String(sentAt);
  if (ids !== undefined && ids.length > 0) metadata[fateMetadata.ids] = ids.join(' ');
  fates.add(1, { fate });
  delete metadata[fateMetadata.index];
  delete metadata[fateMetadata.sentAt];
  delete metadata[fateMetadata.ids];
}

/** A scenario's requests: its area's base URL and credentials. */
interface Route {
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
}

function routeOf(config: K6Config, entry: K6ScenarioConfig): Route {
  const area = entry.area ?? 'kv';
  return {
    baseUrl: area === 'messaging' ? (config.messagingBaseUrl ?? config.baseUrl) : config.baseUrl,
    headers: headersFromEnv(area),
  };
}

/** A bundle's sink URLs (k6-operator): under the target's `sink.url`, with this runner's own token. */
function sinkUrls(sinkUrl: string, token: string): SinkUrls {
  const base = sinkUrl.replace(/\/+$/, '');
  return { url: (role, rest = '') => `${base}/${token}/${role}${rest}` };
}

/**
 * `answerCap`: the harness's k6 extension, when the k6 running the script has it (the entry imports it
 * then): answers are read within the cap by the VU's transport, not by the fallback of answer-reading.ts.
 */
export function k6Script(
  config: K6Config,
  scenarios: Readonly<Record<string, Scenario>>,
  answerCap?: AnswerCap,
): K6Script {
  // open() works only here, in k6's init context.
  const given: States | undefined = config.stateFile ? (JSON.parse(open(config.stateFile)) as States) : undefined;
  const prefix = config.headerPrefix ?? specHeaderPrefix;
  const routes = new Map(config.scenarios.map((entry) => [entry.name, routeOf(config, entry)]));
  const route = (name: string): Route => {
    const found = routes.get(name);
    if (!found) throw new Error(`k6 script: no configuration for scenario ${name}`);
    return found;
  };
  const timeout = `${config.timeoutMs}ms`;
  const sent = new Counter(k6Metrics.sent);
  const tally = new Counter(k6Metrics.tally);
  const mark = new Counter(k6Metrics.mark);
  const fates = new Counter(k6Metrics.fate);
  const declared = new Counter(k6Metrics.threshold);
  const garbage = new Counter(k6Metrics.garbage);
  const garbageDuration = new Trend(k6Metrics.garbageDuration, true);
  // As the node engine: only 2xx completes (k6 would count 200–399 as expected), and no redirect is
  // followed (each hop would be a request of its own in k6's samples); maxRedirects is in the options.
  http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }));

  // One per scenario in this VU (the script's module state is the VU's own).
  const readings = new Map<string, AnswerReading>();
  const readingOf = (entry: K6ScenarioConfig): AnswerReading => {
    let reading = readings.get(entry.name);
    if (!reading) {
      reading = new AnswerReading(entry.maxAnswerBytes ?? defaultMaxAnswerBytes);
      readings.set(entry.name, reading);
    }
    return reading;
  };

  const context = (name: string, keyPrefix: string, sinkToken?: string): ScenarioContext => {
    const entry = config.scenarios.find((item) => item.name === name);
    if (!entry) throw new Error(`k6 script: no configuration for scenario ${name}`);
    const { baseUrl, headers } = route(name);
    const maxAnswerBytes = entry.maxAnswerBytes ?? defaultMaxAnswerBytes;
    return {
      prefix: keyPrefix,
      options: entry.options,
      problem: (line) => console.warn(`${name}: ${line}`),
      ...(entry.sinkUrl !== undefined && sinkToken !== undefined && { sink: sinkUrls(entry.sinkUrl, sinkToken) }),
      async send(request) {
        answerCap?.bound(maxAnswerBytes);
        const res = await http.asyncRequest(request.method, `${baseUrl}${request.path}`, request.body ?? null, {
          headers: {
            ...headers,
            ...dialectHeaders(request.headers, prefix),
            ...(request.body !== undefined && { 'content-type': 'application/json' }),
          },
          timeout,
          // Setup and finish read within the cap as bytes: a few requests, each refused past the cap.
          responseType: 'binary',
        });
        if (res.status === 0) throw new Error(`no answer: ${res.error}`);
        if (answerCap && res.headers[answerCap.pastCapHeader] !== undefined) {
          throw new Error(`the answer passed the ${maxAnswerBytes} bytes this request reads`);
        }
        // As the harness's HTTP client refuses one past `maxAnswerBytes` (setup and finish read within it).
        const size = sizeOf(res.body);
        if (size > maxAnswerBytes) {
          throw new Error(`the answer held ${size} bytes, more than the ${maxAnswerBytes} this request reads`);
        }
        return { status: res.status, body: textOf(res.body) };
      },
    };
  };

  return {
    options: config.k6Options,

    async setup() {
      for (const entry of config.scenarios) {
        for (const text of entry.thresholds ?? []) declared.add(0, { svc_scenario: entry.name, threshold: text });
      }
      if (given) return given;
      // A k6-operator runner: every runner runs setup (k6-operator does not share setup data), so each
      // writes under a prefix of its own and deletes it in teardown.
      const states: States = {};
      const run = `k6-${Date.now().toString(36)}-${Math.floor(Math.random() * 0xffffff).toString(16)}`;
      for (const entry of config.scenarios) {
        const scenario = scenarios[entry.name];
        if (!scenario) throw new Error(`k6 script: scenario ${entry.name} is not bundled`);
        // The runner's own sink token too: its arrivals stay apart from every other runner's.
        states[entry.name] = await scenario.setup?.(
          context(entry.name, entry.prefix ?? `svc-load:${run}:${entry.name}`, `${run}-${entry.name}`),
        );
      }
      return states;
    },

    async teardown(states) {
      // The harness runs finish itself when it ran setup (it knows every segment's tallies).
      if (given) return;
      for (const entry of config.scenarios) {
        const scenario = scenarios[entry.name];
        if (!scenario) continue;
        // Here only to delete what setup wrote: the tallies of the other runners are not known to this one.
        // A scenario's finish works from its state (which holds the prefix setup was given), not from the
        // context's prefix, which only setup reads.
        await scenario.finish?.(states[entry.name], context(entry.name, ''), {});
      }
    },

    iterate(name, states) {
      const scenario = scenarios[name];
      const entry = config.scenarios.find((item) => item.name === name);
      if (!scenario || !entry) throw new Error(`k6 script: scenario ${name} is not bundled`);
      const state = states[name];
      const reading = readingOf(entry);
      const maxAnswerBytes = reading.maxBytes;
      // Unique across every segment of the run, as the node engine's iteration index is across threads.
      const index = exec.scenario.iterationInTest;
      // Past the plan (k6's arrival rate starts one more at the very end): nothing to send, nothing measured.
      if (entry.iterations !== undefined && index >= entry.iterations) return;
      const iteration: Iteration = { index, random: iterationRandom(entry.options.seed, index) };
      const request = scenario.request(state, iteration);
      const { baseUrl, headers } = route(name);
      sent.add(1, request.tags);
      // With the extension every answer is read as bytes, within the cap; without it, as answer-reading.ts says.
      answerCap?.bound(maxAnswerBytes);
      const mode = answerCap ? 'binary' : reading.mode;
      const res = http.request(request.method, `${baseUrl}${request.path}`, request.body ?? null, {
        headers: {
          ...headers,
          ...dialectHeaders(request.headers, prefix),
          ...(request.contentType !== undefined && { 'content-type': request.contentType }),
        },
        tags: { ...request.tags, [commandsTag]: String(request.commands) },
        timeout,
        responseType: mode,
      });
      // With the extension its mark says whether the answer passed the cap; without it, AnswerReading weighs it.
      const fate: AnswerFate | undefined =
        res.status === 0
          ? undefined
          : answerCap
            ? boundedFate(
                { pastCap: res.headers[answerCap.pastCapHeader] !== undefined, size: sizeOf(res.body) },
                maxAnswerBytes,
              )
            : reading.judge({
                mode,
                status: res.status,
                size: sizeOf(res.body),
                declared: contentLength(res.headers['Content-Length']),
              });
      // Past the cap: garbage, its bytes dropped before any string is made of them (record-result.ts).
      const tooLong = fate === 'too-long' || fate === 'judged-too-long';
      if (fate === 'unread') tally.add(1, { tally: unreadCounter });
      if (fate === 'judged-too-long') tally.add(1, { tally: judgedUnreadCounter });
      const body = fate === 'read' ? textOf(res.body) : '';
      const contentType = String(res.headers['Content-Type'] ?? '');
      // An answer that says JSON and is not: `garbage`, and the scenario sees no answer (as on node).
      const isGarbage = tooLong || (fate === 'read' && contentType.includes('json') && !looksLikeJson(body));
      if (isGarbage) {
        garbage.add(1, {
          ...request.tags,
          [commandsTag]: String(request.commands),
          [garbageStatusTag]: res.status >= 200 && res.status < 300 ? '2xx' : 'other',
          ...(tooLong && { [garbageLimitTag]: String(maxAnswerBytes) }),
        });
        if (res.status >= 200 && res.status < 300) {
          garbageDuration.add(res.timings.duration, { ...request.tags, [commandsTag]: String(request.commands) });
        }
      }
      const answer: ScenarioAnswer | null =
        res.status === 0 || isGarbage || fate === 'unread' ? null : { status: res.status, body };
      const outcomes = scenario.check(state, request, answer, {
        add: (tallyName, value = 1) => tally.add(value, { tally: tallyName }),
        mark: (markName, index) => mark.add(index, { mark: markName }),
        fate: (index, fate, sentAt, ids) => tellFate(fates, index, fate, sentAt, ids),
      });
      // One check() each: two outcomes of one name count twice, as on node.
      for (const outcome of outcomes) check(answer, { [outcome.name]: () => outcome.ok });
    },
  };
}
