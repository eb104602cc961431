/**
 * One run's context (issue 37: the run lifecycle was written in every engine, and options existed only
 * so that one engine could call another): built once from checked options, it holds what every part
 * of a run needs. The target files' targets (or the environment's), the report folder, the embedded
 * reference started on first use and stopped with the run, the secrets and the redactor, the
 * reporters' events, the signal, the run id and the clock. Conformance, load and regions are parts
 * that run into a context; `svc-harness run` is a list of parts in one context.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { type EmbeddedReference, startEmbeddedReference } from '../../reference/embedded.ts';
import { type Reporter, type RunEvents, reporterEvents } from '../../results/reporter.ts';
import { createRedactor, type Redactor, shortSecretNotice } from '../../shared/redact.ts';
import { defaultReportDir, makeReportDir } from '../../shared/report-files.ts';
import { environmentTargetLine, loadTargetFileSync } from '../../target/read-target.ts';
import { type Target, targetSecrets } from '../../target/target.ts';

/** What every run takes, whichever its parts: the API's options of each engine carry these names. */
export interface RunCommonOptions {
  /** @default reports/<timestamp>/ under the working directory */
  readonly reportDir?: string;
  /** What renders and writes the run. @default none */
  readonly reporters?: readonly Reporter[];
  readonly signal?: AbortSignal;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /** Lines for the user (the CLI prints them to stderr). */
  readonly log?: (line: string) => void;
}

export interface RunContext {
  /** The run's id: the key prefix of everything its parts write to a target. */
  readonly runId: string;
  readonly started: Date;
  readonly now: () => Date;
  readonly reportDir: string;
  readonly signal: AbortSignal;
  readonly events: RunEvents;
  readonly log: (line: string) => void;
  /** The targets of the files (or the environment's), each name once; empty: the embedded reference. */
  readonly fileTargets: readonly Target[];
  /** The embedded reference, started on the first call, once; stopped by `close`. */
  reference(): Promise<EmbeddedReference>;
  /** Every secret known so far: the targets', and the reference's once started. */
  readonly secrets: readonly string[];
  /** Redacts with every secret known now. */
  readonly redact: Redactor;
  /** Tells, once per run, that a secret is too short to redact safely. */
  noticeShortSecrets(): void;
  /** Stops what the context started (the reference); the run's parts have ended. */
  close(): Promise<void>;
}

/** A part's run, and the error that stopped it if one did: thrown once the reports are written. */
export interface PartOutcome<Run> {
  readonly run: Run;
  readonly error?: unknown;
}

/** Target names made unique (`staging`, `staging#2`): the reports key by name. */
function uniqueNames(targets: readonly Target[]): Target[] {
  const seen = new Map<string, number>();
  return targets.map((target) => {
    const count = (seen.get(target.name) ?? 0) + 1;
    seen.set(target.name, count);
    return count === 1 ? target : { ...target, name: `${target.name}#${count}` };
  });
}

/** A run's targets: the files' (each name once), else the environment's; none, the embedded reference. */
export interface RunTargets {
  readonly targets: readonly Target[];
  /** The one target came from the SVC_* environment (the run says so in a line). */
  readonly fromEnvironment?: Target;
}

/**
 * The targets a run names (a target file, several, or none), read and checked, with nothing started:
 * their checks come before a context.
 */
export function readRunTargets(files: string | readonly string[] | undefined, environmentTarget?: Target): RunTargets {
  const paths = files === undefined ? [] : typeof files === 'string' ? [files] : files;
  if (paths.length === 0 && environmentTarget)
    return { targets: [environmentTarget], fromEnvironment: environmentTarget };
  return { targets: uniqueNames(paths.map((path) => loadTargetFileSync(path))) };
}

/**
 * Opens a run's context: `command` names the run in its lines, `targets` were read and checked
 * (`readRunTargets`); none means the embedded reference, started on first use without switches, or
 * `starting`: a start already under way, handed to the context to own (conformance starts the
 * reference, with its switches, while its suites compile, before the context exists). The report
 * folder is made here.
 */
export async function openRunContext(
  command: string,
  targets: RunTargets,
  options: RunCommonOptions,
  starting?: Promise<EmbeddedReference>,
): Promise<RunContext> {
  const now = options.now ?? (() => new Date());
  const started = now();
  const fileTargets = targets.targets;
  const log = options.log ?? (() => {});
  if (targets.fromEnvironment) log(environmentTargetLine(command, targets.fromEnvironment));
  const reportDir = resolve(options.reportDir ?? defaultReportDir(started));
  try {
    await makeReportDir(reportDir, 'report folder (--report-dir)');
  } catch (error) {
    await starting?.then(
      (ready) => ready.stop(),
      () => {},
    );
    throw error;
  }
  const secrets = new Set(fileTargets.flatMap(targetSecrets));
  let redactor = createRedactor(secrets);
  const addSecrets = (more: readonly string[]) => {
    const before = secrets.size;
    for (const secret of more) secrets.add(secret);
    if (secrets.size !== before) redactor = createRedactor(secrets);
  };
  const owned = (start: Promise<EmbeddedReference>) =>
    start.then((ready) => {
      addSecrets([...targetSecrets(ready.target), ...ready.secrets]);
      return ready;
    });
  let reference = starting && owned(starting);
  reference?.catch(() => {});
  let noticed = false;
  const runId = randomBytes(4).toString('hex');
  const events = reporterEvents(options.reporters ?? [], log);
  events.onRunStart({ runId, command, startedAt: started.toISOString(), reportDir });
  return {
    runId,
    started,
    now,
    reportDir,
    signal: options.signal ?? new AbortController().signal,
    events,
    log,
    fileTargets,
    reference() {
      reference ??= owned(startEmbeddedReference([]));
      return reference;
    },
    get secrets() {
      return [...secrets];
    },
    redact: (text) => redactor(text),
    noticeShortSecrets() {
      if (noticed) return;
      noticed = true;
      const notice = shortSecretNotice(secrets);
      if (notice !== undefined) log(notice);
    },
    async close() {
      const pending = reference;
      reference = undefined;
      await pending?.then(
        (ready) => ready.stop(),
        () => {},
      );
    },
  };
}
