/**
 * The soak's nemesis (Jepsen's word): it walks the fault timeline (fault-schedule.ts) beside the load,
 * doing each occurrence to the process (managed-process.ts) or a network path (network-faults.ts), and
 * writes down what really happened: when each started and was healed (a kill or restart: when the
 * implementation was ready again), and what failed, as the checker and the report read them. Process
 * faults go in turn (a pause is healed before the next starts); network faults overlap them. On abort
 * (Ctrl-C, the load's end), whatever is on is healed before it returns: nothing stays paused, cut or
 * slowed after the run. A fault that cannot be done (no process to kill, toxiproxy refusing) is written
 * down as failed with its reason and the run goes on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultChange } from '../../results/reporter.ts';
import { oneLine } from '../../shared/errors.ts';
import { isProcessFault, type NetworkFaultSpec, type ProcessFaultSpec } from '../../shared/fault-spec.ts';
import type { FaultOccurrence } from './fault-schedule.ts';
import type { FaultableProcess } from './managed-process.ts';
import type { NetworkFaults } from './network-faults.ts';

/** One occurrence as it happened (Unix ms). */
export interface DoneFault {
  readonly id: string;
  readonly text: string;
  readonly action: FaultOccurrence['spec']['action'];
  readonly plannedStartMs: number;
  readonly startAt: number;
  /** Healed: continued, toxics removed, or (kill, restart) ready again. */
  readonly healedAt: number;
  /** A kill's or restart's: the old process gone. */
  readonly downUntil?: number;
  /** Why it could not be done or healed; the run went on. */
  readonly error?: string;
  /** Cut short by the run's end (an abort, or a window the timeline ended with the run). */
  readonly cut?: true;
}

/** What doing one occurrence found: the part of a DoneFault that is not its occurrence's. */
type FaultOutcome = Omit<DoneFault, 'id' | 'text' | 'action' | 'plannedStartMs'>;

export interface NemesisParts {
  readonly process?: FaultableProcess;
  readonly network?: NetworkFaults;
  /** Unix ms now (the run context's clock). */
  readonly now?: () => number;
  /** Told as each occurrence starts and as it is healed (the live outputs' fault events). */
  readonly onChange?: (change: FaultChange) => void;
}

/** The timeline ended its window at the run's end, before its length was up. */
const shortened = (occurrence: FaultOccurrence) => occurrence.endMs - occurrence.startMs < occurrence.spec.windowMs;

/** Waits until `at` (ms from `origin`), or the signal; false when aborted first. */
async function waitUntil(origin: number, at: number, now: () => number, signal: AbortSignal): Promise<boolean> {
  const wait = origin + at - now();
  if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
  return !signal.aborted;
}

async function doProcess(
  spec: ProcessFaultSpec,
  occurrence: FaultOccurrence,
  parts: NemesisParts,
  now: () => number,
  signal: AbortSignal,
): Promise<FaultOutcome> {
  const startAt = now();
  const target = parts.process;
  if (target === undefined) {
    return {
      startAt,
      healedAt: startAt,
      error: 'no process of the soak’s own to do it to (a target file’s `process`)',
    };
  }
  try {
    if (spec.action === 'pause') {
      await target.pause(occurrence.endMs - occurrence.startMs, signal);
      return { startAt, healedAt: now(), ...((signal.aborted || shortened(occurrence)) && { cut: true as const }) };
    }
    const timing = spec.action === 'kill' ? await target.kill() : await target.restart();
    const offset = now() - performance.now();
    return { startAt, downUntil: Math.round(timing.healedAt + offset), healedAt: Math.round(timing.readyAt + offset) };
  } catch (error) {
    return { startAt, healedAt: now(), error: oneLine(error) };
  }
}

async function doNetwork(
  spec: NetworkFaultSpec,
  occurrence: FaultOccurrence,
  origin: number,
  parts: NemesisParts,
  now: () => number,
  signal: AbortSignal,
): Promise<FaultOutcome> {
  const startAt = now();
  const network = parts.network;
  if (network === undefined) return { startAt, healedAt: startAt, error: 'no proxy on the soak’s paths' };
  try {
    await network.inject(spec, occurrence.id);
  } catch (error) {
    return { startAt, healedAt: now(), error: oneLine(error) };
  }
  const whole = await waitUntil(origin, occurrence.endMs, now, signal);
  try {
    await network.heal(spec, occurrence.id);
    return { startAt, healedAt: now(), ...((!whole || shortened(occurrence)) && { cut: true as const }) };
  } catch (error) {
    return { startAt, healedAt: now(), error: `not healed: ${oneLine(error)}` };
  }
}

/** A nemesis under way. */
export interface NemesisRun {
  /** Every occurrence begun, in start order, once all are healed (the timeline ended or was aborted). */
  readonly done: Promise<DoneFault[]>;
  /**
   * Resolves once every fault on now is healed (a kill or restart: ready again), the timeline going on:
   * what a scenario's load end waits for before the next reads the target.
   */
  settled(): Promise<void>;
}

/**
 * Does `timeline` from `origin` (Unix ms, the start of the measured load) until it ends or `signal`
 * aborts; resolves with every occurrence begun, in start order, once all are healed.
 */
export function runNemesis(
  timeline: readonly FaultOccurrence[],
  origin: number,
  parts: NemesisParts,
  signal: AbortSignal,
): Promise<DoneFault[]> {
  return startNemesis(timeline, origin, parts, signal).done;
}

/** `runNemesis`, with a handle on the faults on while it goes. */
export function startNemesis(
  timeline: readonly FaultOccurrence[],
  origin: number,
  parts: NemesisParts,
  signal: AbortSignal,
): NemesisRun {
  // The occurrences begun and not yet healed (or failed): what `settled` waits for.
  const active = new Set<Promise<unknown>>();
  const done = walkTimeline(timeline, origin, parts, signal, active);
  return { done, settled: async () => void (await Promise.all([...active])) };
}

async function walkTimeline(
  timeline: readonly FaultOccurrence[],
  origin: number,
  parts: NemesisParts,
  signal: AbortSignal,
  active: Set<Promise<unknown>>,
): Promise<DoneFault[]> {
  const now = parts.now ?? Date.now;
  const tell = (occurrence: FaultOccurrence, edge: FaultChange['edge'], result?: FaultOutcome) => {
    const { spec } = occurrence;
    parts.onChange?.({
      id: occurrence.id,
      fault: spec.text,
      action: spec.action,
      ...('path' in spec && { path: spec.path }),
      edge,
      elapsedS: ((edge === 'start' ? (result?.startAt ?? now()) : (result?.healedAt ?? now())) - origin) / 1000,
      ...(result?.error !== undefined && { error: result.error }),
      ...(result?.cut === true && { cut: true }),
    });
  };
  // Each occurrence's start is told when it is begun, its end when it is healed.
  const told = async (occurrence: FaultOccurrence, work: () => Promise<FaultOutcome>) => {
    tell(occurrence, 'start');
    const doing = work();
    active.add(doing);
    try {
      const result = await doing;
      tell(occurrence, 'end', result);
      return result;
    } finally {
      active.delete(doing);
    }
  };
  const done: Promise<DoneFault | undefined>[] = [];
  let processTurn: Promise<unknown> = Promise.resolve();
  for (const occurrence of timeline) {
    if (!(await waitUntil(origin, occurrence.startMs, now, signal))) break;
    const { spec } = occurrence;
    const base = { id: occurrence.id, text: spec.text, action: spec.action, plannedStartMs: occurrence.startMs };
    if (isProcessFault(spec)) {
      // In turn: a process fault due while the last is on waits for it.
      // One whose turn comes after the run ended is not done at all.
      const turn = processTurn.then(async () =>
        signal.aborted
          ? undefined
          : { ...base, ...(await told(occurrence, () => doProcess(spec, occurrence, parts, now, signal))) },
      );
      processTurn = turn;
      done.push(turn);
    } else {
      done.push(
        told(occurrence, () => doNetwork(spec, occurrence, origin, parts, now, signal)).then((result) => ({
          ...base,
          ...result,
        })),
      );
    }
  }
  const results = (await Promise.all(done)).filter((item): item is DoneFault => item !== undefined);
  // Whatever a failed heal left on the paths goes too.
  if (results.some((item) => item.error?.startsWith('not healed')))
    await parts.network?.healAll().catch(() => undefined);
  return results.sort((a, b) => a.startAt - b.startAt || a.id.localeCompare(b.id));
}
