/**
 * The reporters a command's flags choose: `--reporter` names and paths (a path is a module of the
 * user's own, loaded before the run starts), `--quiet`/`--verbose` for the console, and `--out`'s
 * live outputs, which hear every event first and are opened now (one that cannot be is one line).
 */
import { loadReporterModule } from '../reporters/custom-reporter.ts';
import { createOutputReporters, type OutputSpec } from '../reporters/outputs/output-reporter.ts';
import { sendIntervalsOf } from '../reporters/outputs/send-intervals.ts';
import { createReporters, type ReporterName, reporterNames } from '../reporters/registry.ts';
import type { Reporter } from '../results/reporter.ts';
import { harnessError } from '../shared/errors.ts';
import { logLine } from './target-flags.ts';

export interface ReporterFlags {
  readonly reporter?: readonly string[];
  readonly out?: readonly OutputSpec[];
  readonly quiet?: boolean;
  readonly verbose?: boolean;
}

const isName = (value: string): value is ReporterName => reporterNames.some((name) => name === value);

export async function reportersOf(
  command: string,
  values: ReporterFlags,
  log: (line: string) => void = logLine,
): Promise<Reporter[]> {
  if (values.quiet === true && values.verbose === true) {
    throw harnessError('SVC_USAGE', `${command}: --quiet and --verbose ask for opposite consoles; give one`);
  }
  const given = values.reporter ?? reporterNames;
  const names = given.filter(isName);
  const own: Reporter[] = [];
  for (const path of given.filter((value) => !isName(value))) own.push(await loadReporterModule(path));
  const chosen = createReporters(names, undefined, {
    own,
    ...(values.quiet === true && { console: 'quiet' }),
    ...(values.verbose === true && { console: 'verbose' }),
  });
  const outs = values.out ?? [];
  // Read before the run, so a wrong interval is one line and exit 2, not an output gone quiet.
  const intervals = sendIntervalsOf(
    process.env,
    outs.map((spec) => spec.kind),
  );
  if (typeof intervals === 'string') throw harnessError('SVC_USAGE', `${command}: ${intervals}`);
  return [...createOutputReporters(outs, (line) => log(`${command}: ${line}`), undefined, intervals), ...chosen];
}
