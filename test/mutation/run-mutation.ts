/**
 * Mutation at the wire: `node test/mutation/run-mutation.ts [options]` (`npm run mutation`).
 *
 * Starts two lanes (a reference with mutating proxies in front of it and before the sink), records a
 * clean run of each area's suite through the proxies, generates the mutants (operator × route class,
 * where the operator changes a recorded exchange), runs each mutant's cases through the CLI, two at a
 * time, and prints the score per family and area with every survivor. By default a fixed-seed sample
 * that fits a CI budget; `--all` runs every mutant.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRedactor, type Redactor } from '../../src/shared/redact.ts';
import { equivalenceOf } from './equivalent.ts';
import type { Area } from './exchange.ts';
import { type Lane, startLane } from './lane.ts';
import { type PlannedMutant, planMutants, sampleMutants } from './mutant-plan.ts';
import { type MutantResult, runMutant } from './mutant-run.ts';
import { ExchangeRecorder, type Recording } from './record-run.ts';
import { renderScore } from './score.ts';

const usage = `usage: node test/mutation/run-mutation.ts [--area kv,messaging,management] [--max N | --all] [--budget SECONDS] [--seed N]
  [--rules GLOB] [--only TEXT]… [--sink-wait SECONDS] [--lanes N] [--out FILE] [--list] [--strict]
       node test/mutation/run-mutation.ts --rescore FILE   (the score of a saved --out file, with today's equivalences)`;

const allAreas: readonly Area[] = ['kv', 'messaging', 'management'];

interface Settings {
  readonly areas: readonly Area[];
  /** At most this many mutants (a fixed-seed sample over every family and area). @default 60 */
  readonly max: number;
  /**
   * Seconds from the start (the clean runs included) after which no mutant run starts, and 30 s later
   * any still running is cut (CI's budget); the sample's order spreads over families and areas, so what
   * is left out is the tail of each. @default 200, a day with --all
   */
  readonly budgetSeconds: number;
  readonly seed: number;
  /** Record (and so mutate) only the cases naming a rule that matches this glob. */
  readonly rules: string | undefined;
  /** Only mutants whose id contains one of these texts. */
  readonly only: readonly string[];
  /**
   * The sink's wait in mutant runs: short, as the reference delivers within milliseconds, and longer
   * than a delayed delivery and its callback (2 × 1 s). @default 6
   */
  readonly sinkWait: number;
  /** Mutant runs side by side, each with its own reference. @default 2 */
  readonly lanes: number;
  readonly out: string | undefined;
  /** Print the mutants and stop. */
  readonly list: boolean;
  /** Exit 1 when a fired mutant survives and is not documented as equivalent. */
  readonly strict: boolean;
  /** A results file of an earlier `--out`: print its score and stop. */
  readonly rescore: string | undefined;
}

class UsageError extends Error {}

/** Every line printed goes through the lanes' secrets (tokens, keys, passwords), as a report does. */
let redact: Redactor = (text) => text;
function say(text: string): void {
  process.stdout.write(redact(text));
}

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`--${name} must be a positive integer, got "${text}"`);
  return value;
}

export function parseSettings(args: readonly string[]): Settings {
  let parsed: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({
      args: [...args],
      options: {
        area: { type: 'string' },
        max: { type: 'string' },
        budget: { type: 'string' },
        all: { type: 'boolean' },
        seed: { type: 'string' },
        rules: { type: 'string' },
        only: { type: 'string', multiple: true },
        'sink-wait': { type: 'string' },
        lanes: { type: 'string' },
        out: { type: 'string' },
        list: { type: 'boolean' },
        strict: { type: 'boolean' },
        rescore: { type: 'string' },
      },
      allowPositionals: false,
    });
  }
  try {
    parsed = parse();
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  const areas = (values.area ?? allAreas.join(',')).split(',').map((area) => area.trim());
  for (const area of areas) {
    if (!allAreas.includes(area as Area))
      throw new UsageError(`--area: unknown area "${area}" (${allAreas.join(', ')})`);
  }
  if (values.all && values.max !== undefined) throw new UsageError('--all and --max exclude each other');
  return {
    areas: areas as Area[],
    max: values.all ? Number.POSITIVE_INFINITY : positive('max', values.max, 60),
    budgetSeconds: positive('budget', values.budget, values.all ? 86_400 : 200),
    seed: positive('seed', values.seed, 20),
    rules: values.rules,
    only: values.only ?? [],
    sinkWait: positive('sink-wait', values['sink-wait'], 6),
    lanes: positive('lanes', values.lanes, 2),
    out: values.out,
    list: values.list ?? false,
    strict: values.strict ?? false,
    rescore: values.rescore,
  };
}

async function record(settings: Settings, lane: Lane, recorder: ExchangeRecorder, dir: string): Promise<Recording[]> {
  const recordings: Recording[] = [];
  for (const area of settings.areas) {
    const recording = await recorder.record(area, lane.targetFile, join(dir, `clean-${area}`), settings.rules);
    const failing = recording.cases.filter((item) => ['fail', 'error', 'stale'].includes(item.verdict));
    if (recording.exitCode !== 0 || failing.length > 0) {
      throw new Error(
        `the clean ${area} run through the proxies did not pass (exit ${recording.exitCode}; ${failing.map((item) => `${item.id}: ${item.verdict}`).join(', ') || 'no failing case'})`,
      );
    }
    say(`clean ${area}: ${recording.cases.length} cases, ${recording.exchanges.length} exchanges recorded\n`);
    recordings.push(recording);
  }
  return recordings;
}

/** After the budget, runs still going get this long to end; then they are cut and count as not run. */
const graceMs = 30_000;

/**
 * Runs the mutants over the lanes, each lane one run at a time, starting none after the deadline and
 * cutting what still runs a little after it; prints a line per result. Returns the results of those
 * that ran to their end, in the sample's order.
 */
async function runAll(
  mutants: readonly PlannedMutant[],
  lanes: readonly Lane[],
  dir: string,
  deadline: number,
): Promise<MutantResult[]> {
  const results: (MutantResult | undefined)[] = new Array(mutants.length);
  let next = 0;
  await Promise.all(
    lanes.map(async (lane) => {
      while (next < mutants.length && Date.now() < deadline) {
        const index = next++;
        const mutant = mutants[index] as PlannedMutant;
        const result = await runMutant(lane, mutant, dir, deadline + graceMs);
        if (result === undefined) continue;
        results[index] = result;
        const seconds = (result.durationMs / 1000).toFixed(1);
        say(
          `[${index + 1}/${mutants.length}] ${result.outcome.padEnd(9)} ${mutant.id} (fired ${result.fired}, ${seconds} s)${result.outcome === 'caught' ? ` by ${result.detail.slice(0, 2).join(', ')}` : ''}\n`,
        );
      }
    }),
  );
  return results.filter((result): result is MutantResult => result !== undefined);
}

async function rescore(file: string): Promise<number> {
  let results: MutantResult[];
  try {
    results = JSON.parse(await readFile(file, 'utf8')) as MutantResult[];
    if (!Array.isArray(results)) throw new Error('not a list of mutant results (from --out)');
  } catch (error) {
    process.stderr.write(
      `run-mutation: --rescore ${file}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 2;
  }
  say(renderScore(results));
  return 0;
}

export async function main(args: readonly string[]): Promise<number> {
  let settings: Settings;
  try {
    settings = parseSettings(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`run-mutation: ${error.message}\n${usage}\n`);
    return 2;
  }
  if (settings.rescore !== undefined) return rescore(settings.rescore);
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'svc-mutation-'));
  const recorder = new ExchangeRecorder();
  const lanes: Lane[] = [];
  // Ctrl-C or a CI timeout: stop the references (and their Redis) before leaving.
  const stop = (signal: NodeJS.Signals) => {
    process.stderr.write(`run-mutation: ${signal}, stopping the references\n`);
    void Promise.all(lanes.map((lane) => lane.close())).finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const laneCount = settings.list ? 1 : settings.lanes;
    lanes.push(
      ...(await Promise.all(
        Array.from({ length: laneCount }, (_unused, index) =>
          startLane({
            dir,
            name: `lane${index + 1}`,
            sinkWaitSeconds: settings.sinkWait,
            ...(index === 0 && { onExchange: recorder.add }),
          }),
        ),
      )),
    );
    redact = createRedactor(lanes.flatMap((lane) => lane.secrets));
    const first = lanes[0] as Lane;
    const recordings = await record(settings, first, recorder, dir);
    const planned: PlannedMutant[] = [];
    for (const recording of recordings) planned.push(...(await planMutants(recording, first.credentials)));
    const wanted = planned.filter(
      (mutant) => settings.only.length === 0 || settings.only.some((text) => mutant.id.includes(text)),
    );
    const chosen = sampleMutants(wanted, settings.max, settings.seed);
    say(
      `mutants: ${planned.length} generated, ${wanted.length} selected, ${chosen.length} to run${chosen.length < wanted.length ? ` (sample, seed ${settings.seed}; --all runs every one)` : ''}\n`,
    );
    if (settings.list) {
      for (const mutant of chosen) say(`  ${mutant.id}  [${mutant.rules.length} rules] ${mutant.example}\n`);
      return 0;
    }
    const results = await runAll(chosen, lanes, dir, started + settings.budgetSeconds * 1000);
    say(`\n${renderScore(results)}`);
    if (results.length < chosen.length) {
      say(
        `not run: ${chosen.length - results.length} of the ${chosen.length} sampled, the budget of ${settings.budgetSeconds} s (from the start) being spent\n`,
      );
    }
    say(`mutation run: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    if (settings.out) await writeFile(settings.out, `${JSON.stringify(results, null, 2)}\n`);
    const survivors = results.filter((item) => item.outcome === 'survived');
    const real = survivors.filter((item) => equivalenceOf(item.mutant.id) === undefined);
    return settings.strict && real.length > 0 ? 1 : 0;
  } catch (error) {
    // One line, redacted; MUTATION_DEBUG=1 adds the stack for whoever works on the runner.
    process.stderr.write(redact(`run-mutation: ${error instanceof Error ? error.message : String(error)}\n`));
    if (process.env.MUTATION_DEBUG) process.stderr.write(redact(`${error instanceof Error ? error.stack : ''}\n`));
    return 2;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await Promise.all(lanes.map((lane) => lane.close()));
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
