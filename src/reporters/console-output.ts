/**
 * The console of a conformance run: a live progress line on a TTY (plain lines otherwise), and the
 * final summary. Renderers return strings; `createConsoleObserver` only writes what they return.
 */

import type { CaseResult, ConformanceRun } from '../results/conformance-run.ts';
import { gateOf, totalsOf, verdictKinds } from '../results/conformance-run.ts';
import { conformanceOnly, type HarnessRun } from '../results/harness-run.ts';
import type { Reporter } from '../results/reporter.ts';
import { rootCauseLines } from '../results/root-cause.ts';
import { gateFailingKinds, verdictRule } from '../results/verdict.ts';
import { oneLine } from '../shared/errors.ts';
import { comparisonConsole } from './compare-text.ts';
import { failedCases, failedThresholds } from './failures.ts';
import { latencyTableLines, loadSummaryLines, progressText, scenarioLines, scenarioStartLine } from './load-console.ts';
import { regionsConsole } from './regions-text.ts';

const label: Record<CaseResult['verdict']['kind'], string> = {
  pass: 'PASS',
  fail: 'FAIL',
  stale: 'STALE',
  error: 'ERROR',
  blocked: 'BLOCKED',
  'expected-failure': 'XFAIL',
  observation: 'OBSERVE',
  skip: 'SKIP',
};

/** How much of a reason a console line shows; the reports keep all of it. */
const consoleReasonChars = 240;

/**
 * One line for a finished case: `FAIL kv.pipeline.order [B.pipeline.order] received … / expected …`;
 * the rule in brackets is the one the verdict names, else the case's rules.
 */
export function resultLine(result: CaseResult): string {
  const reason = 'reason' in result.verdict ? ` ${oneLine(result.verdict.reason, consoleReasonChars)}` : '';
  const rule = verdictRule(result.verdict);
  const rules = rule !== undefined && result.verdict.kind !== 'blocked' ? [rule] : result.rules;
  return `${label[result.verdict.kind]} ${result.caseId} [${rules.join(', ')}]${reason}`;
}

export function countsText(results: readonly CaseResult[]): string {
  const totals = totalsOf(results);
  const parts = verdictKinds.filter((kind) => totals[kind] > 0).map((kind) => `${totals[kind]} ${kind}`);
  return parts.length > 0 ? parts.join(', ') : 'no cases';
}

export function progressLine(done: readonly CaseResult[], planned: number): string {
  const last = done.at(-1);
  return `[${done.length}/${Math.max(planned, done.length)}] ${countsText(done)}${last ? ` · ${last.caseId}` : ''}`;
}

/** Errors one per line, except that many cases with one reason (a run cut short) take one line. */
function errorLines(results: readonly CaseResult[]): string[] {
  const byReason = new Map<string, CaseResult[]>();
  for (const result of results) {
    if (result.verdict.kind !== 'error') continue;
    byReason.set(result.verdict.reason, [...(byReason.get(result.verdict.reason) ?? []), result]);
  }
  return [...byReason].flatMap(([reason, group]) =>
    group.length > 3 ? [`  ERROR ${group.length} cases: ${reason}`] : group.map((result) => `  ${resultLine(result)}`),
  );
}

/** The files the default reporters write, as the summary names them. */
const defaultFiles: readonly string[] = ['report.json', 'junit.xml', 'summary.md'];

/**
 * The summary after a run; `files` are those the chosen reporters wrote into the report folder.
 * `listCases: false` leaves out the lines of cases that did not pass (the live lines showed them).
 */
export function renderConsoleSummary(
  run: ConformanceRun,
  files: readonly string[] = defaultFiles,
  listCases = true,
): string {
  return renderRunSummary(conformanceOnly(run), files, listCases);
}

/** The summary of any run: the conformance part, the load part, then the gate and the report folder. */
export function renderRunSummary(run: HarnessRun, files: readonly string[] = defaultFiles, listCases = true): string {
  // A cause most failures share comes first: one line instead of a hundred to read before seeing it.
  const lines: string[] = run.conformance ? rootCauseLines(run.conformance) : [];
  if (run.conformance) lines.push(...conformanceLines(run.conformance, listCases));
  // Each scenario's lines were printed as it ended: the summary keeps only the load's first line then.
  if (run.load)
    lines.push(...loadSummaryLines(run.load).slice(0, listCases ? undefined : 1), ...latencyTableLines(run.load));
  if (run.compare) lines.push(...comparisonConsole(run.compare));
  if (run.regions) lines.push(...regionsConsole(run.regions));
  if (run.aborted) lines.push(`stopped early: ${run.aborted}`);
  // Printed as they ended, far above in a long run: named again next to the gate they failed.
  if (!listCases) lines.push(...failedNames(run));
  lines.push(`gate: ${gateOf(run.exitCode)} (exit code ${run.exitCode}) in ${(run.durationMs / 1000).toFixed(1)} s`);
  if (files.length > 0) lines.push(`reports: ${run.reportDir} (${files.join(', ')})`);
  return `${lines.join('\n')}\n`;
}

function conformanceLines(run: ConformanceRun, listCases: boolean): string[] {
  const lines: string[] = [];
  for (const target of run.targets) {
    const kind = target.embedded ? ' (embedded reference)' : '';
    lines.push(`${target.name}${kind}: ${target.cases.length} cases: ${countsText(target.cases)}`);
    if (target.problem) {
      lines.push(`  not run: ${target.problem}`);
      continue;
    }
    for (const result of target.cases) {
      // Errors come next, grouped by reason: a run cut short gives many with one reason. A stale
      // expectation is known only at the end, so it is listed even when the live lines showed the rest.
      const { kind } = result.verdict;
      if (gateFailingKinds.has(kind) && kind !== 'error' && (listCases || kind === 'stale')) {
        lines.push(`  ${resultLine(result)}`);
      }
    }
    if (listCases) lines.push(...errorLines(target.cases));
  }
  return lines;
}

/** How often a run with no terminal says where it is, so a CI log is never silent for long. */
const heartbeatMs = 10_000;

/**
 * Progress on `stream`: a rewritten line on a TTY; otherwise a line per case that did not pass, and
 * a heartbeat line every 10 s while cases run. What it prints comes redacted from the runner.
 */
export function createConsoleObserver(
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  options: { readonly heartbeatMs?: number; readonly level?: ConsoleLevel } = {},
): Omit<Reporter, 'name' | 'onRunEnd'> & { end(): void } {
  const level = options.level ?? 'normal';
  if (level === 'quiet') return quietObserver(stream);
  const verbose = level === 'verbose';
  const done: CaseResult[] = [];
  let planned = 0;
  let lineShown = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let startedAt = Date.now();
  const stopHeartbeat = () => {
    clearInterval(heartbeat);
    heartbeat = undefined;
  };
  const write = (text: string) => stream.write(text);
  const clear = () => {
    if (lineShown) write('\r\x1b[2K');
    lineShown = false;
  };
  const show = () => {
    const width = Math.max(20, (stream.columns ?? 100) - 1);
    write(`\r\x1b[2K${progressLine(done, planned).slice(0, width)}`);
    lineShown = true;
  };
  return {
    onTarget(name, embedded) {
      clear();
      done.length = 0;
      planned = 0;
      if (stream.isTTY) write(`conformance: running against ${name}${embedded ? ' (embedded reference)' : ''}\n`);
    },
    onPlanned(count) {
      planned += count;
      if (stream.isTTY) show();
      else if (heartbeat === undefined) {
        startedAt = Date.now();
        heartbeat = setInterval(() => {
          if (done.length < planned) {
            write(`conformance: ${progressLine(done, planned)} · ${Math.round((Date.now() - startedAt) / 1000)} s\n`);
          }
        }, options.heartbeatMs ?? heartbeatMs);
        // The heartbeat never keeps the process alive by itself.
        heartbeat.unref();
      }
    },
    onResult(result) {
      done.push(result);
      if (stream.isTTY) {
        if (verbose || gateFailingKinds.has(result.verdict.kind) || result.verdict.kind === 'blocked') {
          clear();
          write(`${resultLine(result)}\n`);
        }
        show();
      } else if (verbose || result.verdict.kind !== 'pass') write(`${resultLine(result)}\n`);
    },
    onProblem(line) {
      clear();
      write(`svc-harness: ${line}\n`);
    },
    onScenarioStart(name, line) {
      stopHeartbeat();
      clear();
      write(`${scenarioStartLine(name, line)}\n`);
    },
    onProgress(progress) {
      // A rewritten line on a terminal; elsewhere (CI logs) a plain line every five seconds; verbose,
      // a plain line every second anywhere.
      if (verbose) {
        clear();
        write(`${progressText(progress)}\n`);
      } else if (stream.isTTY) {
        const width = Math.max(20, (stream.columns ?? 100) - 1);
        write(`\r\x1b[2K${progressText(progress).slice(0, width)}`);
        lineShown = true;
      } else if (Math.floor(progress.elapsedS) % 5 === 0) write(`${progressText(progress)}\n`);
    },
    onScenarioEnd(result) {
      clear();
      write(`${scenarioLines(result).join('\n')}\n`);
    },
    end() {
      stopHeartbeat();
      clear();
    },
  };
}

/**
 * How much the console says while a run goes (`--quiet`, `--verbose`): quiet, only the problems as
 * they come, then the failures and the gate line; normal, the cases that did not pass, each scenario's
 * start and end and a progress line; verbose, also every case's verdict and a progress line each second.
 */
export const consoleLevels = ['quiet', 'normal', 'verbose'] as const;
export type ConsoleLevel = (typeof consoleLevels)[number];

/** Quiet: nothing while the run goes but its problems (they are failures too). */
function quietObserver(stream: NodeJS.WritableStream): Omit<Reporter, 'name' | 'onRunEnd'> & { end(): void } {
  return {
    onProblem(line) {
      stream.write(`svc-harness: ${line}\n`);
    },
    end() {},
  };
}

/** The quiet summary: what failed (cases, thresholds, scenarios' problems, an early stop), then the gate line. */
export function renderQuietSummary(run: HarnessRun): string {
  const lines: string[] = [];
  for (const target of run.conformance?.targets ?? []) {
    if (target.problem) lines.push(`${target.name}: not run: ${target.problem}`);
    for (const result of target.cases) if (gateFailingKinds.has(result.verdict.kind)) lines.push(resultLine(result));
  }
  for (const scenario of run.load?.scenarios ?? []) {
    if (scenario.problem) lines.push(`${scenario.name} (${scenario.engine}): problem: ${scenario.problem}`);
  }
  for (const threshold of failedThresholds(run.load)) {
    lines.push(
      `${threshold.scenario}: THRESHOLD FAILED ${threshold.expression} (value ${threshold.value ?? 'no data'})`,
    );
  }
  for (const problem of run.load?.problems ?? []) lines.push(`load: ${problem}`);
  if (run.compare?.regressed) lines.push('compared with the baseline: regressed');
  if (run.aborted) lines.push(`stopped early: ${run.aborted}`);
  lines.push(`gate: ${gateOf(run.exitCode)} (exit code ${run.exitCode}) in ${(run.durationMs / 1000).toFixed(1)} s`);
  return `${lines.join('\n')}\n`;
}

type Stream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * The `console` reporter: progress on `progress` (stderr) while the run goes, the summary on
 * `summary` (stdout) at its end, naming the report files the other chosen reporters wrote.
 */
export function createConsoleReporter(options: {
  readonly progress: Stream;
  readonly summary: NodeJS.WritableStream;
  readonly files: readonly string[];
  /** @default 'normal' */
  readonly level?: ConsoleLevel;
}): Reporter {
  const level = options.level ?? 'normal';
  const observer = createConsoleObserver(options.progress, { level });
  return {
    name: 'console',
    ...observer,
    onRunEnd(run, { redact }) {
      observer.end();
      // Every case that did not pass was printed once as it ended; the summary does not repeat it.
      options.summary.write(
        redact(level === 'quiet' ? renderQuietSummary(run) : renderRunSummary(run, options.files, false)),
      );
    },
  };
}

/** At most this many names on the closing lines; the reports list every one. */
const namedAtMost = 10;

/** The failed cases and thresholds by name, a line each kind, for the close of a long run. */
function failedNames(run: HarnessRun): string[] {
  const lines: string[] = [];
  const cases = run.conformance ? failedCases(run.conformance) : [];
  const named = (items: readonly string[]) =>
    `${items.slice(0, namedAtMost).join(', ')}${items.length > namedAtMost ? `, and ${items.length - namedAtMost} more` : ''}`;
  if (cases.length > 0) {
    lines.push(
      `failed cases (${cases.length}): ${named(cases.map(({ result, rule }) => `${result.caseId} [${rule}]`))}`,
    );
    const [first] = cases;
    if (first) lines.push(`  re-run the first: ${first.rerun}`);
  }
  const thresholds = failedThresholds(run.load);
  if (thresholds.length > 0) {
    lines.push(
      `failed thresholds (${thresholds.length}): ${named(thresholds.map((item) => `${item.scenario}: ${item.expression} (${item.value ?? 'no data'})`))}`,
    );
  }
  return lines;
}
