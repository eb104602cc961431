/**
 * The classifier module the sink loads in each of its threads for a messaging scenario: it imports
 * the scenario and answers and classifies each request with the scenario's `sink` part. The state
 * setup returns is known only after the sink's URLs were handed out (setup needs them), so it travels
 * in a shared cell: a SharedArrayBuffer is shared, not copied, when the sink hands `data` to its
 * threads, and the engine writes the state's JSON into it once setup returned. A request before that
 * (none is expected: nothing is published yet) is answered 200 and left unclassified.
 */
import type { ArrivalRecord, Scenario, SinkArrival } from '../../protocol/scenario.ts';

/** Bytes of state JSON a cell holds; a scenario's state is a few names and numbers. */
const cellBytes = 1024 * 1024;

/** A shared cell: the first 4 bytes hold the length of the JSON after them, 0 until it is written. */
export type StateCell = SharedArrayBuffer;

export function newStateCell(): StateCell {
  return new SharedArrayBuffer(4 + cellBytes);
}

/** Writes the state once; every thread reads it from its next request on. */
export function writeState(cell: StateCell, state: unknown): void {
  const bytes = new TextEncoder().encode(JSON.stringify(state ?? null));
  if (bytes.length > cellBytes) {
    throw new Error(`the scenario's state is ${bytes.length} bytes of JSON; the sink takes at most ${cellBytes}`);
  }
  new Uint8Array(cell, 4, bytes.length).set(bytes);
  Atomics.store(new Int32Array(cell, 0, 1), 0, bytes.length);
}

/** The state, or undefined while none was written. */
export function readState(cell: StateCell): { readonly state: unknown } | undefined {
  const length = Atomics.load(new Int32Array(cell, 0, 1), 0);
  if (length === 0) return undefined;
  // Decoding from a shared buffer needs a copy (TextDecoder refuses shared memory).
  const bytes = new Uint8Array(length);
  bytes.set(new Uint8Array(cell, 4, length));
  return { state: JSON.parse(new TextDecoder().decode(bytes)) as unknown };
}

export interface ClassifierData {
  /** A file URL of the scenario module. */
  readonly scenarioUrl: string;
  readonly state: StateCell;
}

export interface SinkClassifier {
  answer(role: string, rest: string): number;
  classify(arrival: SinkArrival): ArrivalRecord | undefined;
}

export async function createClassifier(data: ClassifierData): Promise<SinkClassifier> {
  const module = (await import(data.scenarioUrl)) as { default?: Scenario };
  const sink = module.default?.sink;
  if (sink === undefined) throw new Error(`${data.scenarioUrl} exports no scenario with a sink part`);
  let cached: { readonly state: unknown } | undefined;
  const state = () => {
    cached ??= readState(data.state);
    return cached;
  };
  return {
    answer(role, rest) {
      const known = state();
      return known === undefined ? 200 : sink.answer(known.state, role, rest);
    },
    classify(arrival) {
      const known = state();
      return known === undefined ? undefined : sink.classify(known.state, arrival);
    },
  };
}
