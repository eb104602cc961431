/**
 * `svc-harness load` against targets that misbehave: a port that refuses, one that goes away at the
 * first measured request, one that resets every connection, stalls, answers garbage that
 * calls itself JSON, or answers 500; and a fan-out whose subscriber streams are cut short. Each run
 * ends within a bound with a non-zero exit code, writes a report.json valid against the schema,
 * counts every sent request as completed or failed, and classifies the errors.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import { refusedUrl } from '../engines/conformance/fixtures/bad-servers.ts';
import {
  type FakeServer,
  type HostileKvMode,
  startFanoutKv,
  startHostileKv,
} from '../engines/load/fixtures/kv-fakes.ts';
import { type CliRun, runCli } from '../support/run-cli.ts';

const validateReport = new Ajv({ allErrors: true }).compile(schema);

interface ScenarioEntry {
  readonly name: string;
  readonly problem: string | null;
  readonly requests: { sent: number; completed: number; failed: number; dropped: number };
  readonly errors: readonly { kind: string; count: number; example: string }[];
  readonly thresholds: readonly { expression: string; ok: boolean; value: number | null }[];
  readonly latencyMs: { readonly count: number };
  readonly counters: Readonly<Record<string, number>>;
}

interface LoadReport {
  readonly exitCode: number;
  readonly load: { readonly scenarios: readonly ScenarioEntry[]; readonly problems: readonly string[] };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-load-hostile-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function loadAgainst(
  name: string,
  url: string,
  scenario = 'command',
  flags: readonly string[] = ['--rate', '50'],
  timeout = '1s',
): Promise<{ run: CliRun; report: LoadReport; scenario: ScenarioEntry }> {
  const target = join(dir, `${name}.json`);
  await writeFile(target, JSON.stringify({ name, kv: { url, token: 'hostile-load-token-9876' } }));
  const reportDir = join(dir, name);
  const run = await runCli(
    [
      'load',
      scenario,
      '--target',
      target,
      '--duration',
      '2s',
      ...flags,
      '--timeout',
      timeout,
      '--report-dir',
      reportDir,
      '--reporter',
      'json',
    ],
    { reportDir, timeoutMs: 30_000 },
  );
  expect(run.exitCode, run.stderr).not.toBeNull();
  expect(run.report, `no report.json; stderr: ${run.stderr}`).toBeDefined();
  expect(validateReport(run.report), JSON.stringify(validateReport.errors)).toBe(true);
  const report = run.report as LoadReport;
  expect(report.load.scenarios).toHaveLength(1);
  const [entry] = report.load.scenarios;
  if (!entry) throw new Error('no scenario in report.json');
  // Every request sent is accounted for: answered, or failed (a class per failure).
  expect(entry.requests.sent).toBe(entry.requests.completed + entry.requests.failed);
  expect(entry.errors.reduce((sum, error) => sum + error.count, 0)).toBe(entry.requests.failed);
  expect(run.stderr + run.stdout).not.toMatch(/\n\s+at |unhandled/i);
  return { run, report, scenario: entry };
}

/**
 * With no completed answer there is no latency: the histogram is empty and the latency threshold
 * fails as no data, rather than passing on how fast the refusals, resets or 500s came back.
 */
function expectNoLatency(entry: ScenarioEntry): void {
  expect(entry.latencyMs.count).toBe(0);
  expect(entry.thresholds.find((threshold) => threshold.expression.startsWith('http_req_duration'))).toMatchObject({
    ok: false,
    value: null,
  });
}

/** Counts by error class. */
const kinds = (entry: ScenarioEntry) => Object.fromEntries(entry.errors.map((error) => [error.kind, error.count]));

describe('load against hostile targets', () => {
  const cases: readonly {
    mode: HostileKvMode;
    expected: readonly string[];
    exitCodes: readonly number[];
  }[] = [
    // The target stops listening at the first measured request (whose own connection resets): what follows is refused.
    { mode: 'vanish', expected: ['refused', 'reset'], exitCodes: [2] },
    { mode: 'reset', expected: ['reset'], exitCodes: [2, 99] },
    { mode: 'stall', expected: ['timeout', 'cut-short'], exitCodes: [2, 99] },
    { mode: 'garbage', expected: ['garbage'], exitCodes: [2, 99] },
    { mode: 'status', expected: ['status'], exitCodes: [2, 99] },
  ];

  // A port that was bound and closed: the run stops before its first request, in one line (issue 36),
  // on every engine; no scenario sends its requests into the refusal.
  test.each(['node', 'node-undici', 'k6'])(
    'refused, engine %s: stopped before the first request, exit 2',
    async (engine) => {
      const target = join(dir, `refused-${engine}.json`);
      await writeFile(
        target,
        JSON.stringify({ name: 'refused', kv: { url: await refusedUrl(), token: 'hostile-load-token-9876' } }),
      );
      const reportDir = join(dir, `refused-${engine}`);
      const run = await runCli(['load', 'command', '--target', target, '--engine', engine, '--report-dir', reportDir], {
        reportDir,
        timeoutMs: 30_000,
      });
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.durationMs).toBeLessThan(20_000);
      expect(validateReport(run.report), JSON.stringify(validateReport.errors)).toBe(true);
      const report = run.report as LoadReport & { load: { aborted?: string } };
      expect(report.load.scenarios).toEqual([]);
      expect(report.load.aborted).toMatch(/refused the connection \[SVC_TARGET_UNREACHABLE\]/);
    },
  );

  // The engine contract: both node engines (raw sockets, undici) class every misbehaviour the same way.
  describe.each(['node', 'node-undici'])('engine %s', (engine) => {
    test.each(cases)('$mode: errors classed as $expected, ends in bounded time, exit 2 or 99', async (item) => {
      let server: FakeServer | undefined;
      try {
        server = await startHostileKv(item.mode);
        const { run, scenario } = await loadAgainst(`${engine}-${item.mode}`, server.url, 'command', [
          '--rate',
          '50',
          '--engine',
          engine,
        ]);
        expect(item.exitCodes, run.stderr).toContain(run.exitCode);
        expect(run.durationMs).toBeLessThan(20_000);
        expect(scenario.requests.sent).toBeGreaterThan(0);
        expect(scenario.requests.completed).toBe(0);
        expectNoLatency(scenario);
        const counts = kinds(scenario);
        // Nothing beyond the classes this misbehaviour may cause (a request cut at the end is cut short).
        expect([...item.expected, 'cut-short']).toEqual(expect.arrayContaining(Object.keys(counts)));
        const classified = item.expected.reduce((sum, kind) => sum + (counts[kind] ?? 0), 0);
        expect(classified, JSON.stringify(scenario.errors)).toBeGreaterThan(0);
        if (item.mode !== 'stall') expect(counts[item.expected[0] ?? '']).toBeGreaterThan(scenario.requests.failed / 2);
        expect(scenario.thresholds.find((threshold) => threshold.expression.startsWith('http_req_failed'))?.ok).toBe(
          false,
        );
        if (item.mode === 'vanish') {
          expect(scenario.problem).toMatch(/finish failed .*refused the connection/);
        }
      } finally {
        await server?.close();
      }
    });

    // The closed model reconnects after a reset or a timeout. On node-undici it is autocannon: the
    // request that got no answer is found unanswered when its connection sends the next one, and counted;
    // on node the engine's own loop ends it with its class.
    test.each([
      { mode: 'reset' as const, expected: 'reset' },
      { mode: 'stall' as const, expected: 'timeout' },
    ])('closed model, $mode: every unanswered request counted as $expected', async (item) => {
      const server = await startHostileKv(item.mode);
      try {
        const { run, scenario } = await loadAgainst(`${engine}-closed-${item.mode}`, server.url, 'command', [
          '--model',
          'closed',
          '--connections',
          '2',
          '--engine',
          engine,
        ]);
        expect([2, 99]).toContain(run.exitCode);
        expect(run.durationMs).toBeLessThan(20_000);
        expect(scenario.requests.completed).toBe(0);
        expectNoLatency(scenario);
        expect(kinds(scenario)[item.expected], JSON.stringify(scenario.errors)).toBeGreaterThan(0);
      } finally {
        await server.close();
      }
    });
  });

  // Under k6: a refused port and a stall map from k6's error codes to the same classes (reset and
  // status are plain mappings, unit-tested in test/engines/load/k6/), and an answer that says JSON and
  // is not is garbage there too (the script reports it apart: svc_garbage).
  test.each(cases.filter((item) => ['stall', 'garbage'].includes(item.mode)))(
    'k6 engine, $mode: errors classed as $expected, every request accounted for',
    async (item) => {
      let server: FakeServer | undefined;
      try {
        server = await startHostileKv(item.mode);
        const { run, scenario } = await loadAgainst(`k6-${item.mode}`, server.url, 'command', [
          '--rate',
          '20',
          '--engine',
          'k6',
        ]);
        expect(item.exitCodes, run.stderr).toContain(run.exitCode);
        expect(run.durationMs).toBeLessThan(25_000);
        expect(scenario.requests.sent).toBeGreaterThan(0);
        expect(scenario.requests.completed).toBe(0);
        expectNoLatency(scenario);
        const counts = kinds(scenario);
        expect([...item.expected, 'cut-short']).toEqual(expect.arrayContaining(Object.keys(counts)));
        expect(counts[item.expected[0] ?? ''], JSON.stringify(scenario.errors)).toBeGreaterThan(
          scenario.requests.failed / 2,
        );
      } finally {
        await server?.close();
      }
    },
  );

  // Issue 25: the node engine reads its answers within a 32 MB budget; four connections reading 16 MB
  // answers pass it, so all but one pause, and the report counts the answers that waited (their latency
  // holds that wait).
  test('node engine, answers of 16 MB on 8 connections: every answer read, the ones that waited for memory counted', async () => {
    const server = await startHostileKv('huge');
    try {
      // Values of 3 MB: the command scenario then reads answers up to 18 MB (its largest, with room).
      // Eight connections, so answers overlap past the 32 MB budget even when the fake server, in this
      // process, is slow to send beside other tests (with four, none waited once in a fresh-clone CI).
      const { scenario } = await loadAgainst(
        'node-huge',
        server.url,
        'command',
        [
          '--model',
          'closed',
          '--connections',
          '8',
          '--value-size',
          '3000000',
          // An 18 MB answer from a server in this process took over a second on a loaded machine (two
          // fresh-clone CIs completed 0 and 4 within 1 s, a slower one 0 within 3 s): the budget's pauses
          // are what is tested here, and the drain after the 2 s of load lasts the timeout.
        ],
        '10s',
      );
      expect(scenario.requests.completed).toBeGreaterThan(4);
      expect(scenario.counters.answers_waited_for_memory ?? 0).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 120_000);

  // Issue 25: a GET of a 64-byte value answered with 16 MB. The command scenario's checks can pass no
  // answer past 64 B + 32 (Scenario.largestAnswer), so the engine reads 6 × that + 64 KiB and no more:
  // every answer is garbage that names the cap, none is read whole, none waits for memory.
  test("node engine, answers far past the scenario's largest: garbage at its cap, unread", async () => {
    const server = await startHostileKv('huge');
    try {
      const { run, scenario } = await loadAgainst('node-past-largest', server.url, 'command', [
        '--model',
        'closed',
        '--connections',
        '4',
      ]);
      expect(run.exitCode, run.stderr).toBe(99);
      expect(scenario.problem).toBeNull();
      expect(scenario.requests.completed).toBe(0);
      expect(scenario.requests.failed).toBeGreaterThan(4);
      expect(kinds(scenario)).toEqual({ garbage: scenario.requests.failed });
      const cap = 6 * (64 + 32) + 64 * 1024;
      expect(scenario.errors[0]?.example).toContain(`an answer longer than ${cap} bytes`);
      expect(scenario.counters.answers_waited_for_memory ?? 0).toBe(0);
    } finally {
      await server.close();
    }
  });

  // Issue 25: autocannon (node-undici's closed model) reads every answer whole and cannot stop reading
  // one; against 50 MB answers it grew past 1.2 GB in five seconds. The connection whose answer passes
  // the cap is ended, the run stops there, and a problem says why (exit 2); nothing is counted as an answer.
  test('node-undici closed model (autocannon), answers of 16 MB: ends at the first answer past the cap, a problem says why', async () => {
    const server = await startHostileKv('huge');
    try {
      const { run, scenario } = await loadAgainst('autocannon-huge', server.url, 'command', [
        '--engine',
        'node-undici',
        '--model',
        'closed',
        '--connections',
        '4',
      ]);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(scenario.problem).toContain('the closed run stopped: an answer passed');
      expect(scenario.problem).toContain('autocannon reads every answer whole');
      expect(scenario.requests.completed).toBe(0);
    } finally {
      await server.close();
    }
  });

  /** `load command` on k6 against 16 MB answers, with `ceilingMb` on k6's memory and `env` besides. */
  async function k6AgainstHuge(name: string, ceilingMb: number, env: Readonly<Record<string, string>>) {
    const server = await startHostileKv('huge');
    try {
      const target = join(dir, `${name}.json`);
      await writeFile(target, JSON.stringify({ name, kv: { url: server.url, token: 'hostile-load-token-9876' } }));
      const reportDir = join(dir, name);
      const run = await runCli(
        [
          'load',
          'command',
          '--target',
          target,
          '--engine',
          'k6',
          '--rate',
          '50',
          '--duration',
          '10s',
          '--timeout',
          '5s',
          '--report-dir',
          reportDir,
          '--reporter',
          'json',
        ],
        { reportDir, timeoutMs: 60_000, env: { SVC_K6_MAX_RSS_MB: String(ceilingMb), ...env } },
      );
      expect(validateReport(run.report), JSON.stringify(validateReport.errors)).toBe(true);
      const [scenario] = (run.report as LoadReport).load.scenarios;
      return { run, scenario };
    } finally {
      await server.close();
    }
  }

  // The harness's k6 (with its extension, k6/x/svc-harness) reads an answer only up to the cap, as the
  // node engine does: every answer garbage past the cap, unread, and k6 far under its ceiling
  // (test/engines/load/k6/k6-huge-answers.test.ts bounds it at 200 MB, with Go's limit out of the way).
  // A stock k6 keeps each VU's first answer whole; Go's soft memory limit (half the ceiling) keeps it
  // collecting, and its run ends on its own too.
  test("k6 engine, answers of 16 MB: under the guard's ceiling, every answer judged garbage, exit 99", async () => {
    const { run, scenario } = await k6AgainstHuge('k6-huge', 1500, {});
    expect(scenario?.problem ?? null, run.stderr).toBeNull();
    expect(run.exitCode, run.stderr).toBe(99);
    expect(scenario?.requests.sent).toBeGreaterThan(0);
    expect(scenario?.requests.completed).toBe(0);
    const garbage = scenario?.errors.find((error) => error.kind === 'garbage');
    expect(garbage?.example).toMatch(/^an answer longer than \d+ bytes/);
    expect(garbage?.count).toBe(scenario?.requests.failed);
  });

  // The guard, for a k6 that passes its ceiling (a stock k6 against such answers: the test above's file
  // shows it): here a ceiling under what any k6 process holds once it runs, so it is met on every k6.
  test('k6 engine, a ceiling of 20 MB: the guard stops k6 at it, a problem says why, exit 2', async () => {
    const { run, scenario } = await k6AgainstHuge('k6-huge-ceiling', 20, { GOMEMLIMIT: '8GiB' });
    expect(run.exitCode, run.stderr).toBe(2);
    expect(scenario?.problem).toMatch(/k6 was stopped: its memory passed 20 MB/);
    // Stopped well before the 10 s it was asked for.
    expect(run.durationMs).toBeLessThan(30_000);
  });

  test('kv-fanout whose subscriber streams end after the subscribe event: a problem about the stream, exit 2', async () => {
    const server = await startFanoutKv({ endAfterSubscribe: true });
    try {
      const { run, scenario } = await loadAgainst('stream-cut', server.url, 'kv-fanout');
      expect(run.exitCode).toBe(2);
      expect(run.durationMs).toBeLessThan(20_000);
      expect(scenario.problem).toMatch(/subscriber \d+'s stream ended early/);
      expect(server.counts.streams).toBe(8);
    } finally {
      await server.close();
    }
  });
});
