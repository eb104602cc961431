/**
 * The clean run that mutants are generated from: the suite of one area runs in this process (the
 * conformance engine with a reporter that notes when each case ends) against a lane, whose proxies
 * record every exchange. Cases run one after another, so an exchange belongs to the case that had not
 * ended when it arrived, unless its request names a case (a key under that case's prefix); what the
 * probe sends before the cases start belongs to none.
 */
import { runConformance } from '../../src/engines/conformance/run-conformance.ts';
import type { CaseResult } from '../../src/results/conformance-run.ts';
import type { Reporter } from '../../src/results/reporter.ts';
import type { Area, Exchange } from './exchange.ts';

export interface RecordedCase {
  readonly id: string;
  readonly rules: readonly string[];
  readonly verdict: string;
  readonly durationMs: number;
}

export interface AttributedExchange {
  readonly exchange: Exchange;
  /** The cases that may have been running when it arrived; none before the first case (the probe). */
  readonly caseIds: readonly string[];
}

/** How late vitest may report a finished case: its 100 ms batching and the message's way back. */
const reportLagMs = 250;

export interface Recording {
  readonly area: Area;
  readonly cases: readonly RecordedCase[];
  readonly exchanges: readonly AttributedExchange[];
  readonly exitCode: number;
}

/** Collects exchanges; `record` runs one area's suite and returns its share, attributed to cases. */
export class ExchangeRecorder {
  readonly #exchanges: Exchange[] = [];
  #recording = false;

  /** The lane's `onExchange`: keeps exchanges only while a clean run records. */
  readonly add = (exchange: Exchange): void => {
    if (this.#recording) this.#exchanges.push(exchange);
  };

  async record(area: Area, targetFile: string, reportDir: string, rules?: string): Promise<Recording> {
    const ends: { at: number; result: CaseResult }[] = [];
    let startedAt = Number.POSITIVE_INFINITY;
    const clock: Reporter = {
      name: 'case-clock',
      onPlanned: () => {
        startedAt = Math.min(startedAt, Date.now());
      },
      onResult: (result) => {
        ends.push({ at: Date.now(), result });
      },
    };
    const from = this.#exchanges.length;
    this.#recording = true;
    const run = await runConformance({
      targets: [targetFile],
      areas: [area],
      reportDir,
      reporters: [clock],
      // One case at a time: an exchange is attributed to the case running when it arrived.
      caseConcurrency: 1,
      ...(rules !== undefined && { rules }),
    }).finally(() => {
      this.#recording = false;
    });
    const caseIds = ends.map((item) => item.result.caseId);
    const exchanges = this.#exchanges.slice(from).map((exchange): AttributedExchange => {
      if (exchange.at < startedAt) return { exchange, caseIds: [] };
      // A request that names a case (its keys are `<prefix>:<case id>:<name>`) is that case's: the clock
      // below gives each exchange of a quick case to the thirty cases reported within the lag, and the
      // plan, trying a few exchanges of each such group, then missed a case's later ones (XREADGROUP).
      const named = namedCases(exchange, caseIds);
      if (named.length > 0) return { exchange, caseIds: named };
      const candidates = ends.filter((item) => item.at >= exchange.at && item.at <= exchange.at + reportLagMs);
      // The first case reported after it, else (a late delivery after the last case) the last case.
      const first = ends.find((item) => item.at >= exchange.at) ?? ends.at(-1);
      const ids = new Set([...candidates, ...(first ? [first] : [])].map((item) => item.result.caseId));
      return { exchange, caseIds: [...ids] };
    });
    const cases = ends.map(({ result }) => ({
      id: result.caseId,
      rules: result.rules,
      verdict: result.verdict.kind,
      durationMs: result.durationMs,
    }));
    return { area, cases, exchanges, exitCode: run.exitCode };
  }
}

/** The cases whose id the request names between colons (or `%3A`s in a path), as the suites' key spaces do. */
export function namedCases(exchange: Exchange, caseIds: readonly string[]): string[] {
  const text = `${exchange.request.path.replace(/%3A/gi, ':')} ${exchange.request.body.toString('latin1')}`;
  return caseIds.filter((id) => text.includes(`:${id}:`));
}
