/**
 * What k6's numbers mean to the harness: its process exit codes (errext/exitcodes in k6's source)
 * and the `error_code` tag of a failed request (lib/netext/httpext/error_codes.go), each mapped to
 * the harness's own documented exit codes and error classes.
 */
import type { ErrorClass } from '../../../results/load-run.ts';

/** How the harness takes a k6 process's exit. */
export type K6Outcome =
  /** The load ran to its end (thresholds are judged by the harness over every segment's samples). */
  | 'completed'
  /** SIGINT or SIGTERM reached k6: what it measured until then is kept, the run is marked interrupted. */
  | 'interrupted'
  /** The run did not complete: a problem on the scenario (k6's last error line), exit code 2. */
  | 'failed';

export interface K6Exit {
  readonly name: string;
  readonly outcome: K6Outcome;
}

export const k6ExitCodes: Readonly<Record<number, K6Exit>> = {
  0: { name: 'success', outcome: 'completed' },
  97: { name: 'CloudTestRunFailed', outcome: 'failed' },
  98: { name: 'CloudFailedToGetProgress', outcome: 'failed' },
  // k6 judged its own segment's samples; a segment alone says nothing of the whole, so the harness judges again.
  99: { name: 'ThresholdsHaveFailed', outcome: 'completed' },
  100: { name: 'SetupTimeout', outcome: 'failed' },
  101: { name: 'TeardownTimeout', outcome: 'failed' },
  102: { name: 'GenericTimeout', outcome: 'failed' },
  103: { name: 'ScriptStoppedFromRESTAPI', outcome: 'interrupted' },
  104: { name: 'InvalidConfig', outcome: 'failed' },
  105: { name: 'ExternalAbort', outcome: 'interrupted' },
  106: { name: 'CannotStartRESTAPI', outcome: 'failed' },
  107: { name: 'ScriptException', outcome: 'failed' },
  108: { name: 'ScriptAborted', outcome: 'failed' },
  109: { name: 'GoPanic', outcome: 'failed' },
  110: { name: 'MarkedAsFailed', outcome: 'failed' },
};

/** An exit code (or a signal when k6 was killed) as the harness takes it. */
export function k6Exit(code: number | null, signal: string | null): K6Exit & { readonly code: string } {
  if (code === null) return { code: signal ?? 'killed', name: `killed by ${signal ?? 'a signal'}`, outcome: 'failed' };
  const known = k6ExitCodes[code];
  return { code: String(code), ...(known ?? { name: 'unknown exit code', outcome: 'failed' }) };
}

/** k6's request error codes by class; anything else is `other`, with k6's message as the example. */
export function errorClassOfK6(code: string | undefined, message: string | undefined): ErrorClass {
  switch (code) {
    case '1212':
      return 'refused';
    case '1050':
    case '1211':
      return 'timeout';
    case '1201':
    case '1220':
      return 'reset';
    default:
      // k6 has no code of its own for these: they are the generic 1000 with Go's message.
      if (code !== '1000' || message === undefined) return 'other';
      if (/malformed HTTP|bad status|invalid/i.test(message)) return 'garbage';
      return /EOF|reset|closed/i.test(message) ? 'reset' : 'other';
  }
}
