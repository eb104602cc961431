/**
 * A live output as a reporter: it hears the run's events like any reporter, turns each into records
 * (live-records.ts) and hands them to its kind's writer. It never hurts the run: a destination that
 * cannot be opened is one line at the start and no output; a hook that fails is counted, not thrown;
 * the end waits for the writer a bounded time and says in one line what was dropped.
 */
import type { Reporter } from '../../results/reporter.ts';
import { oneLine } from '../../shared/errors.ts';
import { LiveRecords } from './live-records.ts';
import { type OutputKind, openOutput } from './output-kinds.ts';
import type { OutputWriter } from './output-writer.ts';
import { defaultSendIntervals, type SendIntervals } from './send-intervals.ts';
import { withoutCredentials } from './shown-url.ts';

/** One `--out`: its kind and destination (a file, a URL). */
export interface OutputSpec {
  readonly kind: OutputKind;
  readonly destination: string;
}

/** How long the run's end waits for an output's writer before it drops what is left. */
export const outputCloseMs = 5000;

/**
 * The reporters of `specs`, each opened now, the URL kinds sending at `intervals`: one that cannot be
 * opened is said in one `log` line and left out, and the run goes on without it.
 */
export function createOutputReporters(
  specs: readonly OutputSpec[],
  log: (line: string) => void,
  now: () => Date = () => new Date(),
  intervals: SendIntervals = defaultSendIntervals,
): Reporter[] {
  return specs.flatMap((spec) => {
    const label = `--out ${spec.kind}=${withoutCredentials(spec.destination)}`;
    let writer: OutputWriter;
    try {
      writer = openOutput[spec.kind](spec.destination, intervals);
    } catch (error) {
      log(`${label}: cannot be written (${oneLine(error)}); the run goes on without this output`);
      return [];
    }
    return [outputReporter(label, spec, writer, log, now)];
  });
}

function outputReporter(
  label: string,
  spec: OutputSpec,
  writer: OutputWriter,
  log: (line: string) => void,
  now: () => Date,
): Reporter {
  const records = new LiveRecords(now);
  let failures = 0;
  let firstFailure: string | undefined;
  // Every hook the same way: records made and handed over, a failure counted, never thrown.
  const hand = (make: () => ReturnType<LiveRecords['progress']>) => {
    try {
      writer.write(make());
    } catch (error) {
      failures++;
      firstFailure ??= oneLine(error);
    }
  };
  return {
    name: `out:${spec.kind}`,
    onRunStart: (start) => hand(() => records.runStart(start)),
    onTarget: (name, embedded) => hand(() => records.target(name, embedded)),
    onResult: (result) => hand(() => records.caseResult(result)),
    onProblem: (line) => hand(() => records.problem(line)),
    onScenarioStart: (name, line, start) => hand(() => records.scenarioStart(name, line, start)),
    onPhase: (change) => hand(() => records.phase(change)),
    onFault: (change) => hand(() => records.fault(change)),
    onResources: (reading) => hand(() => records.resources(reading)),
    onProgress: (progress) => hand(() => records.progress(progress)),
    onScenarioEnd: (result) => hand(() => records.scenarioEnd(result)),
    async onRunEnd(run) {
      const before = writer.totals();
      hand(() => records.runEnd(run, { [`dropped_${writer.unit}`]: before.dropped }));
      let totals = before;
      try {
        totals = await writer.close(outputCloseMs);
      } catch (error) {
        failures++;
        firstFailure ??= oneLine(error);
      }
      if (totals.dropped > 0) {
        log(
          `${label}: ${totals.dropped} of ${totals.dropped + totals.written} ${writer.unit} dropped${totals.error ? ` (${totals.error})` : ''}; the run's reports have everything`,
        );
      }
      if (failures > 0) log(`${label}: ${failures} events not written (${firstFailure})`);
    },
  };
}
