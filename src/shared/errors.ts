/**
 * One catalog of coded errors and exit codes (after fastify's lib/errors.js and k6's named exit codes).
 * Every error the harness reports to a user is one of these: a code, a one-line message, an exit code.
 * The table of docs/errors.md is kept in step with this catalog by a test.
 */
import { excerpt } from './excerpt.ts';

/** Process exit codes of every command. */
export const ExitCode = {
  /** Everything ran and every gate passed. */
  ok: 0,
  /** The run completed and a gate failed (a MUST case failed, a stale expectation, a threshold). */
  failed: 1,
  /**
   * The run could not judge the target: a usage or config mistake, a target that cannot be reached or
   * refuses the credentials, a missing tool, a reporter that failed, a defect of the harness, or a run
   * that judged nothing or was interrupted. The SVC_* code on the error line says which (issue 37: this
   * was named `usage`, and meant all of these).
   */
  notJudged: 2,
  /** A run compared with a baseline (`--baseline`) regressed beyond the noise; nothing else failed. */
  regressed: 98,
  /** A load run completed and a threshold failed (the code k6 uses for the same). */
  thresholds: 99,
  /** A second SIGINT or SIGTERM ended the run at once, before its report (128 + SIGINT, as shells count). */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

interface ErrorDefinition {
  readonly exitCode: ExitCode;
  readonly summary: string;
}

/** The catalog: code → exit code and a summary used by `--help` and docs/errors.md's table. */
export const errorCatalog = {
  SVC_USAGE: { exitCode: ExitCode.notJudged, summary: 'unknown command, unknown flag or bad flag value' },
  SVC_CONFIG: { exitCode: ExitCode.notJudged, summary: 'a target file or expectations file is missing or malformed' },
  SVC_TARGET_UNREACHABLE: {
    exitCode: ExitCode.notJudged,
    summary: 'the target refused the connection, timed out, or its address does not resolve',
  },
  SVC_TARGET_GARBAGE: {
    exitCode: ExitCode.notJudged,
    summary: 'the target answered something that is not the protocol',
  },
  SVC_TARGET_AUTH: {
    exitCode: ExitCode.notJudged,
    summary: 'the target refused the credentials a load run was given (401 or 403 to an authenticated probe)',
  },
  SVC_REDIS_UNAVAILABLE: {
    exitCode: ExitCode.notJudged,
    summary: 'no Redis for the reference: no --redis-url/REDIS_URL, no redis-server on PATH, no container engine',
  },
  SVC_REFERENCE_START: { exitCode: ExitCode.notJudged, summary: 'the reference service could not start' },
  SVC_K6_UNAVAILABLE: {
    exitCode: ExitCode.notJudged,
    summary: 'no usable k6: none on K6_BINARY or PATH, too old, or the build from the Go module proxy failed',
  },
  SVC_TOOL_UNAVAILABLE: {
    exitCode: ExitCode.notJudged,
    summary: 'a tool the soak drives (toxiproxy) is not on PATH or its env variable, and could not be built',
  },
  SVC_GATE_FAILED: { exitCode: ExitCode.failed, summary: 'the run completed and a gate failed' },
  SVC_THRESHOLDS_FAILED: { exitCode: ExitCode.thresholds, summary: 'a load run completed and a threshold failed' },
  SVC_REGRESSED: {
    exitCode: ExitCode.regressed,
    summary: 'compared with its baseline, a metric regressed beyond the noise or a rule newly fails',
  },
  SVC_REPORTER: {
    exitCode: ExitCode.notJudged,
    summary: 'a reporter could not render or write its file; the other reporters wrote theirs',
  },
  SVC_INTERNAL: { exitCode: ExitCode.notJudged, summary: 'a defect of svc-harness itself (please report it)' },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof errorCatalog;

/** The one error class the harness throws for anything a user should read. */
export class HarnessError extends Error {
  override readonly name = 'HarnessError';
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.exitCode = errorCatalog[code].exitCode;
  }
}

/** Factory: `harnessError('SVC_CONFIG', 'target file t.json: ...')`. */
export function harnessError(code: ErrorCode, message: string, cause?: unknown): HarnessError {
  return new HarnessError(code, message, cause === undefined ? undefined : { cause });
}

export function isHarnessError(value: unknown): value is HarnessError {
  return value instanceof HarnessError;
}

/**
 * The first line of an error's message (its name when the message is empty): for one-line reports.
 * A message may open with blank lines (assertion libraries' do), so the first line with text is
 * taken; `max` cuts a long line (marked with …) where a report cell must stay readable.
 */
export function oneLine(error: unknown, max = Number.POSITIVE_INFINITY): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  const lines = text.split('\n');
  const line = lines.find((part) => part.trim().length > 0) ?? lines[0] ?? '';
  return excerpt(line, max);
}

/** One line for the console: `svc-harness: <message> [CODE]`; never a stack trace. */
export function formatErrorLine(error: unknown): string {
  if (isHarnessError(error)) return `svc-harness: ${error.message} [${error.code}]`;
  return `svc-harness: unexpected error: ${oneLine(error)} [SVC_INTERNAL]`;
}

export function exitCodeOf(error: unknown): ExitCode {
  return isHarnessError(error) ? error.exitCode : ExitCode.notJudged;
}
