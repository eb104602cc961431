/**
 * The scenario API: what a load scenario (scenarios/*.ts) is. A scenario says what to send, how to
 * check each answer and what to count; an engine (the node engine or k6) decides when to send.
 * It lives in the neutral protocol layer, with no Node module, Buffer or process, so k6 can load
 * the same scenario files. Setup and finish run in the harness's own process (on either engine);
 * only `request` and `check` must run where the load is made (a worker thread, a k6 VU).
 */

/** Per-request tags: the dimensions metrics are kept by (`{batch: "100"}`), and thresholds select. */
export type Tags = Readonly<Record<string, string>>;

/** One request to the area's base URL; credentials and vendor headers are the engine's. */
export interface ScenarioRequest<Meta = undefined> {
  readonly method: 'GET' | 'POST';
  /** Encoded, starting with `/`, relative to the area's base URL. */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  /**
   * Headers of this request, named as the spec writes them (`Svc-Callback`): the engine renames the
   * `Svc-` prefix into the target's dialect (`Upstash-Callback`) and adds credentials.
   */
  readonly headers?: Readonly<Record<string, string>>;
  readonly tags: Tags;
  /** Key-value commands the request carries (a pipeline of 100 is 100). */
  readonly commands: number;
  /** What the scenario needs again when it checks the answer (the keys a transaction increments). */
  readonly meta: Meta;
}

/** An answer, or `null` when none came (refused, reset, timed out): its outcome is unknown. */
export interface ScenarioAnswer {
  readonly status: number;
  readonly body: string;
}

/** A named check on one answer (k6's `check`): counted as passes and fails, never thrown. */
export interface CheckOutcome {
  readonly name: string;
  readonly ok: boolean;
}

/** Counters a scenario keeps beyond requests (committed increments); summed over workers and segments. */
export interface Tally {
  add(name: string, value?: number): void;
  /**
   * Puts an iteration's index into the named set (`accepted`: the publishes the target took). Sets are
   * merged by union over workers and segments; a messaging scenario's sink expects the arrivals of
   * the iterations in its `accepted` set, and only those.
   */
  mark(name: string, index: number): void;
  /**
   * What became of a publish (issue 39, the soak's checker): `sentAt` in Unix ms (the send time its
   * body carries), `ids` the message ids an acknowledgement named. Both engines keep them (k6 as a
   * sample with metadata, k6-config.ts); optional, so an engine that kept none would leave the soak
   * counters only, and say so.
   */
  fate?(index: number, fate: PublishFate, sentAt: number, ids?: readonly string[]): void;
}

/**
 * A publish's fate: `acknowledged`, a success answer naming its message ids; `refused`, a definite
 * error answer; `indeterminate`, no answer (a timeout, a reset) or one that does not say (502, 503,
 * 504 from a gateway): the implementation may or may not have taken it.
 */
export type PublishFate = 'acknowledged' | 'refused' | 'indeterminate';

/** The settings a scenario runs with, after defaults and the command line. */
export interface ScenarioOptions {
  readonly durationS: number;
  /** Requests per second at the plateau (open model). */
  readonly rate: number;
  readonly connections: number;
  readonly batch: readonly number[];
  readonly valueSize: readonly number[];
  readonly seed: number;
  /**
   * Every parameter the scenario declares (`Scenario.params`), the command line's value (`--param
   * name=value`) or else its default. Setup reads them and puts what `request` and `classify` need
   * into the state: that is how k6 VUs and the sink's threads get them.
   */
  readonly params: Readonly<Record<string, number>>;
}

/**
 * A number the command line may set for one scenario (`--param endpoints=4`), with its bounds: the
 * engine checks a value against them before anything starts, and fills in the default otherwise.
 */
export interface ScenarioParam {
  /** One line for `load --list` and docs/load.md. */
  readonly description: string;
  readonly default: number;
  /** Whole numbers only. @default false */
  readonly integer?: boolean;
  /** The least value allowed (inclusive). */
  readonly min: number;
  /** The greatest value allowed (inclusive). */
  readonly max: number;
}

/**
 * A scenario's parameters as numbers: the engine's filled values, or a declared default where a
 * hand-made context (a test) gives none.
 */
export function paramValues<P extends Readonly<Record<string, ScenarioParam>>>(
  declared: P,
  options: Pick<ScenarioOptions, 'params'>,
): { readonly [Name in keyof P]: number } {
  const values: Record<string, number> = {};
  for (const [name, param] of Object.entries(declared)) values[name] = options.params[name] ?? param.default;
  return values as { readonly [Name in keyof P]: number };
}

/** What setup and finish may do: requests that are not measured, under the scenario's own key prefix. */
export interface ScenarioContext {
  /** Unique per run: every key and channel the scenario writes starts with it. */
  readonly prefix: string;
  readonly options: ScenarioOptions;
  /**
   * Something went wrong that the run must report, without stopping the scenario (preparing the
   * key space failed: the load still runs, and its checks show what that means).
   */
  problem(line: string): void;
  /**
   * The sink's URLs for this scenario, present when the scenario has a `sink` part: every URL it
   * hands the target (endpoints, callbacks, waiters) is one of these, under the target's `sink.url`.
   */
  readonly sink?: SinkUrls;
  /** Resolves with the answer, whatever its status; rejects when none came (refused, reset, timed out). */
  send(request: {
    readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
    readonly path: string;
    readonly body?: string;
    /** Spec-named headers, renamed into the target's dialect as for `ScenarioRequest.headers`. */
    readonly headers?: Readonly<Record<string, string>>;
  }): Promise<ScenarioAnswer>;
}

/** Where the target must call back: URLs under the sink's advertised base, with the run's own token. */
export interface SinkUrls {
  /** `role` is letters, digits and `-`; `rest` (a path starting with `/`, or empty) is the scenario's. */
  url(role: string, rest?: string): string;
}

/** One iteration of the load: its global index (unique across workers and segments) and a seeded random. */
export interface Iteration {
  readonly index: number;
  /** Uniform in [0, 1), from the run's seed: the same seed sends the same requests. */
  readonly random: () => number;
}

/** What a scenario found when it checked the target's state at the end. */
export interface ScenarioFinish {
  readonly checks?: readonly CheckOutcome[];
  readonly lostUpdates?: number;
  readonly doubledUpdates?: number;
  readonly unknownOutcomes?: number;
}

/**
 * Subscribers of a fan-out (server-sent events): opened before the load, parsed by the scenario,
 * accounted by the engine (received, lost, duplicated, out of order, publish → event latency).
 */
export interface FanoutPart<State> {
  readonly subscribers: number;
  /** The stream to open, relative to the base URL (`POST /subscribe/{channel}`). */
  streamPath(state: State): string;
  /** The event data that says the subscription is live (`subscribe,<channel>,<count>`). */
  isReady(data: string, state: State): boolean;
  /** The message's sequence (the publishing iteration's index) in an event's data, or undefined for other events. */
  sequenceOf(data: string, state: State): number | undefined;
}

/** What a messaging scenario accounts for at the sink, each exactly: expected, received, lost, duplicated. */
export type ArrivalStream = 'delivery' | 'callback' | 'failureCallback' | 'waiter';

/** One request the target sent to the sink, as a scenario reads it (where the sink runs: its threads). */
export interface SinkArrival {
  /** The role of the URL it came to, and the path after it (with the query). */
  readonly role: string;
  readonly rest: string;
  readonly method: string;
  /** Header names in lower case, the first value of each. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as UTF-8 text. */
  readonly body: string;
}

/** What an arrival is, for the accounting. */
export interface ArrivalRecord {
  readonly stream: ArrivalStream;
  /** The iteration that caused it (whose `accepted` mark makes it expected). */
  readonly index: number;
  /** Unique within the stream: a second arrival with the same key is a duplicate. */
  readonly key: string;
  /** Unix milliseconds when its cause was sent (publish, notify), read from what it carries: latency from there. */
  readonly sentAt?: number;
  /** A callback's: the key of the delivery it reports on (delivery → callback latency). */
  readonly causeKey?: string;
  /** Where metrics are also kept apart (`{endpoint: "e3"}`): per-endpoint latency and accounting. */
  readonly tags?: Tags;
}

/**
 * One arrival an accepted iteration must cause: the key `classify` will give it, with the tags its
 * metrics are kept apart by when the scenario has some (so a lost one is counted under its tags too).
 */
export type ExpectedArrival = string | { readonly key: string; readonly tags?: Tags };

/** What one accepted iteration must cause at the sink, per stream. */
export type Expectation = Readonly<Partial<Record<ArrivalStream, readonly ExpectedArrival[]>>>;

/**
 * The sink side of a messaging scenario: the harness runs the sink (the target calls it back), the
 * scenario says how the sink answers and what each request is. Pure functions of plain data: they
 * run in the sink's threads, whichever engine sends the load.
 */
export interface SinkPart<State> {
  /** The status to answer a request of `role` with `rest` (a failing destination answers 500). */
  answer(state: State, role: string, rest: string): number;
  /** What the arrival is, or undefined when it is none of the scenario's (counted as unexpected). */
  classify(state: State, arrival: SinkArrival): ArrivalRecord | undefined;
  /** The keys one accepted iteration must cause, per stream. */
  expected(state: State, index: number): Expectation;
  /** How long to wait, once the load ended, for what is still expected. @default 30 */
  readonly graceS?: number;
}

export interface ScenarioDefaults {
  readonly rate: number;
  readonly durationS: number;
  readonly batch: readonly number[];
  readonly valueSize: readonly number[];
}

export interface Scenario<State = unknown, Meta = unknown> {
  readonly name: string;
  readonly title: string;
  /** The target area it loads: requests go to its base URL with its credentials. */
  readonly area: 'kv' | 'messaging';
  readonly defaults: ScenarioDefaults;
  /** What the command line may set (`--param name=value`), by name (lower-case letters, digits, `-`). */
  readonly params?: Readonly<Record<string, ScenarioParam>>;
  /**
   * Why the scenario needs the open model, when it does (its setup prepares for the plan's count of
   * iterations, which the closed model does not have): `--model closed` is refused with this reason.
   */
  readonly needsOpenModel?: string;
  /** k6-syntax thresholds it gates on by default (`http_req_failed: rate<0.01`). */
  readonly thresholds: readonly string[];
  /**
   * The most bytes an answer its checks can pass holds, written compactly, for these options (a
   * pipeline's is its largest batch of its largest values). The node engine reads no answer past
   * `answerRoom` of it (escapes and spacing allowed): a longer one is garbage, dropped unread, so a
   * target answering megabytes to a GET of 64 bytes costs the harness the answer it asked for, not the
   * one it got. Without it, the target's `maxAnswerBytes` is the only cap (100 MiB by default).
   */
  largestAnswer?(options: ScenarioOptions): number;
  /**
   * Prepares the target; the state must be plain data (k6 passes it to its VUs as JSON). Optional: without
   * it the state is undefined.
   */
  setup?(context: ScenarioContext): Promise<State>;
  /** The request of one iteration. */
  request(state: State, iteration: Iteration): ScenarioRequest<Meta>;
  /** Checks an answer (null: none came) and counts what the scenario accounts for. */
  check(
    state: State,
    request: ScenarioRequest<Meta>,
    answer: ScenarioAnswer | null,
    tally: Tally,
  ): readonly CheckOutcome[];
  /** Verifies the target's state against the tallies, and deletes what the scenario wrote. Optional. */
  finish?(state: State, context: ScenarioContext, tallies: Readonly<Record<string, number>>): Promise<ScenarioFinish>;
  /**
   * The counters the scenario's committed updates must have reached, read while the load runs (the
   * soak reads them after each recovery, issue 39): counter name → value. Each acknowledged fate names,
   * as its ids, the counters it incremented, once per increment.
   */
  readBack?(state: State, context: ScenarioContext): Promise<Readonly<Record<string, number>>>;
  readonly fanout?: FanoutPart<State>;
  /** A messaging scenario's sink: the engine runs it and accounts for every arrival (tally mark `accepted`). */
  readonly sink?: SinkPart<State>;
}

/**
 * What the engine reads of an answer whose compact form is at most `largest` bytes: six times it (a
 * JSON escape writes one character as six, `\u0061`) plus 64 KiB (spacing, an error's text, headers'
 * worth of slack). No answer a check can pass is longer; a longer one is garbage before it is read.
 */
export function answerRoom(largest: number): number {
  return 6 * Math.ceil(largest) + 64 * 1024;
}

/** Identity for types (vitest's defineConfig habit): a scenario module exports `defineScenario({...})`. */
export function defineScenario<State, Meta>(scenario: Scenario<State, Meta>): Scenario<State, Meta> {
  return scenario;
}

/** mulberry32: a small seeded generator, the same on Node and k6. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value of `size` characters (printable ASCII, so it is the same bytes in every encoding). */
export function valueOfSize(size: number, seed: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let text = '';
  for (let index = 0; index < size; index++) text += alphabet[(seed + index * 7) % alphabet.length];
  return text;
}

/** The JSON answer of a kv request, or undefined when the body is not JSON. */
export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** `{result: …}` without an error. */
export function isResultObject(value: unknown): value is { readonly result: unknown } {
  return typeof value === 'object' && value !== null && 'result' in value && !('error' in value);
}
