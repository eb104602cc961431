/**
 * The soak's fault grammar (issue 39): `--fault SPEC` and the config file's `faults`, one fault a
 * string. Scripts rely on these words, so they are the ones the issue gives, and nothing reads a fault
 * any other way:
 *
 *   kill every 10m                           SIGKILL the implementation, then start it again
 *   restart every 30m                        a graceful restart (SIGTERM, wait for the exit, start)
 *   pause 5s every 7m                        SIGSTOP for 5 s, then SIGCONT
 *   partition sink 30s every 15m             a blackhole on a path for 30 s
 *   latency 200ms±50ms for 60s every 20m     added latency with jitter on a path, for 60 s
 *   bandwidth 100KB/s for 60s every 20m      a path's throughput capped, for 60 s
 *   reset for 10s every 5m                   every connection on a path reset, for 10 s
 *
 * A path is `target` (the harness to the implementation, the default) or `sink` (the implementation to
 * the harness's sink). A window's length may also be written `for D` on `pause` and `partition`
 * (`pause for 5s every 7m`). `after D` sets the first occurrence (default: one period in), so a short
 * schedule fits a test (`kill every 20s after 5s`). `±` may be written `+-`. Durations are the one
 * grammar's (duration.ts). Pure: text in, a spec or a one-line refusal out.
 */
import { durationExamples, parseDurationMs } from './duration.ts';

/** Faults on the implementation's process. */
export const processActions = ['kill', 'restart', 'pause'] as const;
/** Faults on a network path. */
export const networkActions = ['partition', 'latency', 'bandwidth', 'reset'] as const;
export const faultActions = [...processActions, ...networkActions] as const;
export type FaultAction = (typeof faultActions)[number];
export type ProcessAction = (typeof processActions)[number];
export type NetworkAction = (typeof networkActions)[number];

/** Harness → implementation (`target`), implementation → the harness's sink (`sink`). */
export const faultPaths = ['target', 'sink'] as const;
export type FaultPath = (typeof faultPaths)[number];

interface SpecBase {
  /** The spec as written (its words one space apart), for the report and one-line messages. */
  readonly text: string;
  readonly everyMs: number;
  /** When the first occurrence falls, from the start of the measured load. */
  readonly afterMs: number;
}

export interface ProcessFaultSpec extends SpecBase {
  readonly action: ProcessAction;
  /** How long a pause lasts; 0 for kill and restart (the restart's own time is measured, not set). */
  readonly windowMs: number;
}

export interface NetworkFaultSpec extends SpecBase {
  readonly action: NetworkAction;
  readonly path: FaultPath;
  readonly windowMs: number;
  /** `latency`: the added delay and its jitter (uniform, ±). */
  readonly latencyMs?: number;
  readonly jitterMs?: number;
  /** `bandwidth`: the cap, bytes per second. */
  readonly bytesPerSecond?: number;
}

export type FaultSpec = ProcessFaultSpec | NetworkFaultSpec;

/** A fault that does not read: `message` is the one line (the caller names the flag or key). */
export class FaultSpecError extends Error {}

const examples =
  'kill every 10m, pause 5s every 7m, partition sink 30s every 15m, latency 200ms±50ms for 60s every 20m';

const isProcess = (word: string): word is ProcessAction => (processActions as readonly string[]).includes(word);
const isAction = (word: string): word is FaultAction => (faultActions as readonly string[]).includes(word);
const isPath = (word: string): word is FaultPath => (faultPaths as readonly string[]).includes(word);

const bandwidthUnits: Readonly<Record<string, number>> = { 'B/s': 1, 'KB/s': 1024, 'MB/s': 1024 * 1024 };

/** Reads one fault; throws a FaultSpecError whose message is one line quoting the spec. */
export function parseFaultSpec(text: string): FaultSpec {
  const refuse = (why: string): never => {
    throw new FaultSpecError(`"${text}" is not a fault: ${why} (for example: ${examples})`);
  };
  const words = text.trim().split(/\s+/).filter(Boolean);
  let at = 0;
  const next = () => words[at++];
  const peek = () => words[at];
  const duration = (what: string): number => {
    const word = next();
    const ms = word === undefined ? undefined : parseDurationMs(word);
    if (ms === undefined || !(ms >= 0)) {
      return refuse(`${what} must be a duration (${durationExamples})${word === undefined ? '' : `, not "${word}"`}`);
    }
    return ms;
  };
  const positive = (what: string): number => {
    const ms = duration(what);
    return ms > 0 ? ms : refuse(`${what} must be above zero`);
  };

  const action = next();
  if (action === undefined) return refuse('it is empty');
  if (!isAction(action)) return refuse(`"${action}" is none of ${faultActions.join(', ')}`);
  let path: FaultPath = 'target';
  const pathWord = peek();
  if (pathWord !== undefined && isPath(pathWord)) {
    if (isProcess(action)) refuse(`${action} is a fault of the process, not of a path`);
    path = pathWord;
    at++;
  }

  let windowMs = 0;
  let latencyMs: number | undefined;
  let jitterMs: number | undefined;
  let bytesPerSecond: number | undefined;
  if (action === 'latency') {
    const amount = next() ?? refuse('latency needs an amount (200ms, or 200ms±50ms)');
    const [base, jitter, extra] = amount.split(/±|\+-/);
    const baseMs = base === undefined ? undefined : parseDurationMs(base);
    const jitterValue = jitter === undefined ? 0 : parseDurationMs(jitter);
    if (extra !== undefined || baseMs === undefined || jitterValue === undefined || !(baseMs > 0) || jitterValue < 0) {
      refuse(`latency's amount is a duration above zero with an optional ± jitter (200ms±50ms), not "${amount}"`);
    }
    latencyMs = baseMs as number;
    jitterMs = jitterValue as number;
    if (jitterMs > latencyMs) refuse(`the jitter (${jitter}) is larger than the latency (${base})`);
  } else if (action === 'bandwidth') {
    const amount = next() ?? refuse('bandwidth needs a rate (100KB/s)');
    const match = /^(\d+(?:\.\d+)?)(B\/s|KB\/s|MB\/s)$/.exec(amount);
    const value = match ? Number(match[1]) * (bandwidthUnits[match[2] as string] as number) : 0;
    if (!(value >= 1)) refuse(`bandwidth's rate is a number with B/s, KB/s or MB/s (100KB/s), not "${amount}"`);
    bytesPerSecond = Math.round(value);
  } else if (action === 'pause' || action === 'partition') {
    if (peek() === 'for') at++;
    windowMs = positive(`${action}'s length`);
  }
  if (action === 'latency' || action === 'bandwidth' || action === 'reset') {
    if (next() !== 'for') refuse(`${action} needs how long it lasts: "for 60s"`);
    windowMs = positive(`${action}'s length`);
  }

  if (next() !== 'every') refuse('it needs how often: "every 10m"');
  const everyMs = positive('the period');
  let afterMs = everyMs;
  if (peek() === 'after') {
    at++;
    afterMs = duration('the first occurrence');
  }
  const rest = words.slice(at);
  if (rest.length > 0) refuse(`"${rest.join(' ')}" is left over`);
  if (windowMs >= everyMs) refuse(`it lasts ${windowMs / 1000} s, as long as its period or longer`);

  const base = { text: words.join(' '), everyMs, afterMs, windowMs };
  if (isProcess(action)) return { ...base, action };
  return {
    ...base,
    action,
    path,
    ...(latencyMs !== undefined && { latencyMs, jitterMs: jitterMs ?? 0 }),
    ...(bytesPerSecond !== undefined && { bytesPerSecond }),
  };
}

/** Whether a spec acts on the process (kill, restart, pause) rather than a network path. */
export const isProcessFault = (spec: FaultSpec): spec is ProcessFaultSpec => isProcess(spec.action);
