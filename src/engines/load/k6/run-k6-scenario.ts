/**
 * One scenario on k6: setup in the harness's process (as on the node engine), its state in a file,
 * the generated TypeScript entry handed to N k6 processes (one execution segment each, as
 * k6-operator's `parallelism: N` gives its runners), their JSON outputs read into one result with
 * global percentiles and thresholds, then finish with every segment's tallies. A messaging scenario's
 * publishers run on k6 and its sink in the harness: the sink opens before setup (setup hands the
 * target its URLs, the state carries them into k6), and once k6 is done it accounts for what the
 * iterations every segment marked `accepted` must cause.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScenarioResult } from '../../../results/load-run.ts';
import { oneLine } from '../../../shared/errors.ts';
import { liveThresholdsOf, withThresholds } from '../live-thresholds.ts';
import { progressOf } from '../part-progress.ts';
import { mergeParts } from '../recorder.ts';
import { type DriverInput, type DriverLoad, type LoadDriver, runScenarioLifecycle } from '../scenario-lifecycle.ts';
import { type ScenarioRun, scheduleOf } from '../scenario-plan.ts';
import { resultBase } from '../scenario-result.ts';
import type { K6Binary } from './k6-binary.ts';
import { k6Exit } from './k6-codes.ts';
import { runFolder, writeEntry } from './k6-entry.ts';
import { guardMemory, k6GoMemoryLimit, k6MaxRssBytes } from './k6-memory-guard.ts';
import { k6Options } from './k6-options.ts';
import { K6LiveRead, readK6Outputs } from './k6-output.ts';
import type { K6Config } from './script/k6-config.ts';

/** `0,1/3,2/3,1` and the i-th segment `1/3:2/3`, as k6-operator writes them. */
export function executionSegments(count: number): { sequence: string; segments: string[] } {
  const point = (index: number) => (index === 0 ? '0' : index === count ? '1' : `${index}/${count}`);
  return {
    sequence: Array.from({ length: count + 1 }, (_, index) => point(index)).join(','),
    segments: Array.from({ length: count }, (_, index) => `${point(index)}:${point(index + 1)}`),
  };
}

/**
 * The harness's environment without k6's own settings (`K6_DURATION`, `K6_SYSTEM_TAGS`, `K6_HTTP_DEBUG`
 * rank above the script's options, and would change the load, put keys back into the output or print
 * the token) or the script's (`SVC_K6_*`: the target's credentials are set below, never inherited).
 */
function inheritedEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('K6_') && !name.startsWith('SVC_K6_')),
  );
}

/** Requests per segment above which k6's output is written gzipped. */
const gzipAbove = 50_000;

interface Finished {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stderr: string;
  /** Killed by the memory guard: its RSS passed this many bytes. */
  readonly overMemoryBytes?: number;
}

/** The last lines k6 wrote to stderr: the reason when it fails (k6 logs as `level=error msg=…`). */
function lastError(stderr: string): string {
  const lines = stderr.trim().split('\n').filter(Boolean);
  const error = [...lines].reverse().find((line) => /level=(error|fatal)/.test(line)) ?? lines.at(-1) ?? '';
  const message = /msg="((?:[^"\\]|\\.)*)"/.exec(error)?.[1] ?? error;
  return message.replace(/\\n/g, ' ').slice(0, 300);
}

function waitFor(child: ChildProcess, deadlineMs: number, maxRssBytes: number): Promise<Finished> {
  const guard = guardMemory(child, maxRssBytes);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    // The end is what says why it failed; keep a bounded tail.
    stderr = (stderr + chunk).slice(-16_384);
  });
  child.stdout?.resume();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      guard.stop();
      resolve({ code: null, signal: null, stderr: `${stderr}\n${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const { killed } = guard.stop();
      resolve({ code, signal, stderr, ...(killed && { overMemoryBytes: maxRssBytes }) });
    });
  });
}

export function runK6Scenario(run: ScenarioRun, k6: K6Binary, segments: number): Promise<ScenarioResult> {
  return runScenarioLifecycle(run, k6Driver(k6, segments));
}

/** k6 as a driver of the scenario lifecycle: the load in `segments` k6 processes, their outputs merged. */
export function k6Driver(k6: K6Binary, segments: number): LoadDriver {
  return {
    base: (run, options) => resultBase(run, options, { name: 'k6', workers: 1, segments, k6Version: k6.version }),
    load: (input) => loadOnK6(input, k6, segments),
  };
}

async function loadOnK6(input: DriverInput, k6: K6Binary, segments: number): Promise<DriverLoad> {
  const { run, options, state, context, problems } = input;
  const { scenario } = run;
  const plan = {
    name: scenario.name,
    model: run.settings.model,
    options,
    ...(run.settings.ramp && { ramp: run.settings.ramp.stages }),
    thresholds: run.thresholds,
  };
  const outputs: string[] = [];
  let merged = mergeParts([]);
  let dir: string | undefined;
  let firstMs = 0;
  let lastMs = 0;
  try {
    const folder = await runFolder();
    dir = folder;
    const stateFile = join(folder, 'state.json');
    await writeFile(stateFile, JSON.stringify({ [scenario.name]: state }));
    const config: K6Config = {
      baseUrl: run.target.baseUrl,
      headerPrefix: run.target.headerPrefix,
      timeoutMs: run.settings.timeoutMs,
      scenarios: [
        {
          name: scenario.name,
          options,
          area: scenario.area,
          ...(run.settings.model === 'open' && { iterations: scheduleOf(run, options).total }),
          prefix: context.prefix,
          thresholds: run.thresholds.map((threshold) => threshold.text),
          // Already lowered to the scenario's largest answer with room (run-load.ts, withAnswerCap).
          maxAnswerBytes: run.target.maxAnswerBytes,
        },
      ],
      k6Options: {
        ...k6Options([plan], run.settings.timeoutMs),
        ...(run.target.tls?.insecure && { insecureSkipTLSVerify: true }),
      },
      stateFile,
    };
    const entry = await writeEntry(folder, config, [{ name: scenario.name, file: run.file }], {
      boundedReads: k6.boundedReads,
    });
    const { sequence, segments: parts } = executionSegments(segments);
    const deadlineMs = (options.durationS + run.settings.timeoutMs / 1000 + 1 + 300) * 1000;
    // k6 writes about 3 KB of JSON a request (16 samples); a long or closed-model run writes it gzipped
    // (about 160 B a request) at some CPU in k6, a short one plain.
    const perSegment =
      run.settings.model === 'closed' ? Number.POSITIVE_INFINITY : (options.rate * options.durationS) / segments;
    const suffix = perSegment > gzipAbove ? '.json.gz' : '.json';
    if (segments > options.connections) {
      throw new Error(
        `${segments} segments share ${options.connections} VUs (--connections): each segment needs at least one`,
      );
    }
    // Interrupted during setup: nothing to start.
    if (run.signal.aborted) throw new Error('interrupted before k6 started');
    const children = parts.map((segment, index) => {
      const output = join(folder, `segment-${index}${suffix}`);
      outputs.push(output);
      const args = [
        'run',
        '--quiet',
        '--no-usage-report',
        '--no-color',
        '--summary-mode=disabled',
        '--address=',
        `--out=json=${output}`,
        ...(segments > 1 ? [`--execution-segment=${segment}`, `--execution-segment-sequence=${sequence}`] : []),
        entry,
      ];
      return spawn(k6.path, args, {
        cwd: folder,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...inheritedEnv(),
          // Credentials through the environment, never the entry or the command line.
          SVC_K6_HEADERS: JSON.stringify(run.target.headers),
          K6_NO_USAGE_REPORT: 'true',
          GOMEMLIMIT: k6GoMemoryLimit(),
          ...(run.target.tls?.ca && { SSL_CERT_FILE: run.target.tls.ca }),
        },
      });
    });
    // k6 stops at SIGINT: what is in flight is cut short (and counted so); one still in init is killed.
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      for (const child of children) child.kill('SIGINT');
      killTimer = setTimeout(() => {
        for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      }, run.settings.timeoutMs + 10_000);
    };
    // A second Ctrl-C exits the harness at once (130): no k6 may outlive it and go on loading the target.
    const kill = () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(folder, { recursive: true, force: true });
    };
    run.signal.addEventListener('abort', stop, { once: true });
    if (run.signal.aborted) stop();
    process.on('exit', kill);
    // k6's outputs read as k6 writes them: the live figures each second, the result once k6 is done.
    const live = new K6LiveRead();
    const reading = readK6Outputs(outputs, { onBadFile: (line) => problems.push(line), live });
    // Awaited below, once k6 is done; a rejection before then is not an unhandled one.
    reading.catch(() => {});
    const judged = liveThresholdsOf(run.thresholds);
    const phase = (edge: 'start' | 'end') =>
      run.phase?.({ scenario: scenario.name, engine: 'k6', phase: 'load', edge, durationS: options.durationS });
    phase('start');
    const ticks = setInterval(() => {
      const sofar = live.progress(scenario.name);
      if (sofar === undefined) return;
      const progress = progressOf(sofar.parts, {
        scenario: scenario.name,
        engine: 'k6',
        elapsedS: Math.max(0, (Date.now() - sofar.firstMs) / 1000),
        durationS: options.durationS,
      });
      run.progress(withThresholds(progress, input.base, judged, judged.length > 0 ? live.totals(scenario.name) : []));
    }, 1000);
    let finished: Finished[];
    try {
      const maxRss = k6MaxRssBytes();
      finished = await Promise.all(children.map((child) => waitFor(child, deadlineMs, maxRss)));
    } finally {
      clearTimeout(killTimer);
      clearInterval(ticks);
      live.stop();
      phase('end');
      run.signal.removeEventListener('abort', stop);
      process.off('exit', kill);
    }
    finished.forEach((result, index) => {
      const exit = k6Exit(result.code, result.signal);
      const which = segments > 1 ? ` (segment ${parts[index]})` : '';
      if (result.overMemoryBytes !== undefined) {
        problems.push(
          `k6${which} was stopped: its memory passed ${Math.round(result.overMemoryBytes / 1024 / 1024)} MB (k6 keeps every answer body it reads and has no cap on an answer's size; SVC_K6_MAX_RSS_MB sets the ceiling)`,
        );
      } else if (exit.outcome === 'failed') {
        problems.push(`k6${which} exited ${exit.code} (${exit.name}): ${lastError(result.stderr)}`);
      } else if (exit.outcome === 'interrupted' && !run.signal.aborted) {
        problems.push(`k6${which} was stopped from outside the harness (exit ${exit.code}, ${exit.name})`);
      }
    });
    const read = await reading;
    const mine = read.scenarios.get(scenario.name);
    if (mine) {
      merged = mergeParts(mine.parts);
      firstMs = mine.firstMs;
      lastMs = mine.lastMs;
    }
  } catch (error) {
    problems.push(`the load stopped: ${oneLine(error)}`);
  }
  if (dir) await rm(dir, { recursive: true, force: true }).catch(() => {});
  return { merged, ranSeconds: (lastMs - firstMs) / 1000 };
}
