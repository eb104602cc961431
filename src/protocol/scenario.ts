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
}

/** The settings a scenario runs with, after defaults and the command line. */
export interface ScenarioOptions {
  readonly durationS: number;
  /** Requests per second at the plateau (open model). */
  readonly rate: number;
  readonly connections: number;
  readonly batch: readonly number[];
  readonly valueSize: readonly number[];
  readonly seed: number;
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
  /** Resolves with the answer, whatever its status; rejects when none came (refused, reset, timed out). */
  send(request: {
    readonly method: 'GET' | 'POST';
    readonly path: string;
    readonly body?: string;
  }): Promise<ScenarioAnswer>;
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

export interface ScenarioDefaults {
  readonly rate: number;
  readonly durationS: number;
  readonly batch: readonly number[];
  readonly valueSize: readonly number[];
}

export interface Scenario<State = unknown, Meta = unknown> {
  readonly name: string;
  readonly title: string;
  /** The target area it loads. */
  readonly area: 'kv';
  readonly defaults: ScenarioDefaults;
  /** k6-syntax thresholds it gates on by default (`http_req_failed: rate<0.01`). */
  readonly thresholds: readonly string[];
  /** Prepares the target; the state must be plain data (k6 passes it to its VUs as JSON). */
  setup(context: ScenarioContext): Promise<State>;
  /** The request of one iteration. */
  request(state: State, iteration: Iteration): ScenarioRequest<Meta>;
  /** Checks an answer (null: none came) and counts what the scenario accounts for. */
  check(
    state: State,
    request: ScenarioRequest<Meta>,
    answer: ScenarioAnswer | null,
    tally: Tally,
  ): readonly CheckOutcome[];
  /** Verifies the target's state against the tallies, and deletes what the scenario wrote. */
  finish(state: State, context: ScenarioContext, tallies: Readonly<Record<string, number>>): Promise<ScenarioFinish>;
  readonly fanout?: FanoutPart<State>;
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
