import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The project's own tests, in projects: unit and quiet (`npm test`), exhaustive, package, and fast (the
// author's loop). The conformance suites have their own configuration, conformance/vitest.config.ts,
// which `svc-harness conformance` runs through vitest's Node API against a target.
// Under CI a JSON report is written too, so .ci/run can print a closing "N passed, N failed" line.
/** The tests that pack, install and build images of the harness. */
const packageTests = ['test/package/**/*.test.ts', 'test/cli/image-target.test.ts'];
/**
 * The exhaustive runs: self-validation through every fault switch (a CLI conformance run per switch,
 * about 520 s of the suite's time) and the third-party verdict tables. A step of their own in
 * .ci/run (`npm run test:exhaustive`), outside `npm test`.
 */
const exhaustiveTests = ['test/conformance/self-validation*.test.ts', 'test/third-party/**/*.test.ts'];
/**
 * Tests that judge how a process's memory settles, which other tests' load on the cores changes: run
 * alone, after the unit tests (`npm test`). Beside them, serve-memory.test.ts failed two fresh-clone
 * CIs in a row (the peak held for 40 s) and passes alone every time.
 */
const quietTests = ['test/cli/serve-memory.test.ts'];

/**
 * The author's loop (`npm run test:fast`): the test files that start no process, server, Redis, k6 or
 * browser, found by what they import and call, so a new test joins or leaves the set by itself. The
 * fast project's setup (test/support/no-processes.ts) makes any child process a failure, so a file
 * this pattern lets through by mistake fails loudly instead of slowing the loop down.
 */
const slowTest =
  /run-cli\.ts|runCli|spawn|execFile|fixture-server|processes\.ts|fork\(|startEmbedded|startTestRedis|useTestReference|acquireRedis|chromium|createServer|listenOnLoopback|startReference|runLoad|runConformance|runMainJob|new Worker|startSink|startTestServer|bad-servers|kv-fakes|startHostile|openSink|startCountingSink|runRegions|findK6|podman|testcontainers|self-validation|receiver|messaging-client|reference-fixture|hostile-conformance|importUserModule|ManagedProcess/;

function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const root = import.meta.dirname;
const fastTests = testFiles(join(root, 'test'))
  .filter((file) => !slowTest.test(readFileSync(file, 'utf8')))
  .map((file) => relative(root, file));

/**
 * Seconds the longest test files took, hooks included (vitest's cache after a run of the unit project
 * here, three workers). A fresh clone has no vitest cache, so vitest orders files by size, and small files
 * that wait a minute started last and ran alone at the end: a stalled target and a run with every fault
 * on made 40 s of tail in a 309 s run, and signature-scheme.test.ts, whose two conformance runs are in
 * its beforeAll, 28 s of a 260 s run.
 */
const knownLongSeconds: Readonly<Record<string, number>> = {
  'test/cli/conformance-messaging.test.ts': 69,
  'test/reliability/load-hostile.test.ts': 70,
  'test/cli/run.test.ts': 56,
  'test/reliability/hostile-targets.test.ts': 43,
  'test/reference/messaging/messaging-faults.test.ts': 35,
  'test/reference/messaging/messaging-silences.test.ts': 27,
  'test/conformance/signature-scheme.test.ts': 30,
  'test/cli/load.test.ts': 30,
  'test/engines/load/messaging-exactness.test.ts': 30,
  'test/engines/load/k6/k6-messaging.test.ts': 29,
  'test/cli/k6.test.ts': 28,
  'test/cli/compare-regions.test.ts': 26,
  'test/cli/conformance-secrets.test.ts': 21,
  'test/cli/targets.test.ts': 24,
  'test/reliability/hostile-stall.test.ts': 16,
  'test/engines/load/transport-equal.test.ts': 14,
  'test/cli/conformance.test.ts': 13,
  'test/cli/api.test.ts': 12,
  'test/conformance/dialect.test.ts': 11,
  'test/mutation/run-mutation.test.ts': 13,
  'test/conformance/support/messaging-sink.test.ts': 12,
  'test/cli/k6-operator.test.ts': 10,
  'test/cli/prometheus-rw.test.ts': 17,
  'test/engines/load/accounting.test.ts': 9,
  'test/reliability/interrupts.test.ts': 25,
  'test/reference/kv/kv-faults.test.ts': 9,
  // The exhaustive and package step (.ci/run's fresh-clone run of 5d8bd22: each file's seconds, hooks
  // included, beside each other on four workers): the longest must start first, or a late one runs alone
  // at the end.
  'test/conformance/self-validation-silences.test.ts': 330,
  'test/conformance/self-validation-messaging-management.test.ts': 300,
  'test/conformance/self-validation.test.ts': 270,
  'test/package/workflow.test.ts': 230,
  'test/package/install.test.ts': 140,
  'test/package/install-target.test.ts': 100,
  'test/package/image.test.ts': 90,
  'test/conformance/self-validation-order.test.ts': 70,
  'test/cli/image-target.test.ts': 60,
};

/**
 * Longest first, so no long file starts late: by the duration vitest recorded (a machine that ran the
 * tests before), else by `knownLongSeconds`; the rest after them in vitest's own order. Groups
 * (`groupOrder`) keep their order.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const order = new Map(base.map((spec, index) => [spec, index]));
    const expected = (spec: TestSpecification) =>
      this.ctx.cache.getTestSpecificationResult(spec)?.duration ??
      (knownLongSeconds[relative(root, spec.moduleId)] ?? -1) * 1000;
    return [...base].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        expected(b) - expected(a) ||
        (order.get(a) ?? 0) - (order.get(b) ?? 0),
    );
  }
}

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    // Four test files at a time. Vitest's default on these 2-core machines is one (cores - 1), and most
    // of this suite's time is spent waiting on child processes, servers and timed load runs. Measured
    // here for the unit project: 396 s with two workers (0.93 of the 2 cores busy), 306 s with three
    // (1.32 cores). Four once failed three different timed tests in three fresh-clone CI runs (a k6 run's
    // pace, two latencies compared, a CLI usage error killed at 60 s: the last was the vitest/node exit
    // hang, since fixed), when the tests took 440 s of CPU. With the reference's starts and Redis links
    // cheaper (340 s of CPU), four took 203 s with all 1,368 passing, three 247–259 s.
    maxWorkers: 4,
    // Each of .ci/run's test steps names its own file (SVC_VITEST_JSON), so the closing line sums them all.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: process.env.SVC_VITEST_JSON ?? 'reports/vitest-unit.json' }]]
      : ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...packageTests, ...exhaustiveTests, ...quietTests],
          // Fails the run when a test leaves a redis-server or an svc-* temporary folder behind.
          globalSetup: ['test/support/leftovers.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'quiet',
          include: quietTests,
          globalSetup: ['test/support/leftovers.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'exhaustive',
          include: exhaustiveTests,
          globalSetup: ['test/support/leftovers.ts'],
          testTimeout: 60_000,
          hookTimeout: 1_200_000,
          pool: 'forks',
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The package as users get it: packed, installed, built into images. They build (tsc, npm, podman)
        // for minutes and took the CPU the other tests' timed CLI runs needed (two of those timed out in
        // CI beside them), so they run after the unit tests (`groupOrder`), beside the exhaustive runs
        // (the same group), whose fault runs leave cores free while they wait.
        test: {
          name: 'package',
          include: packageTests,
          // After leftovers.ts, so its tarball is packed after the snapshot and removed before the check.
          globalSetup: ['test/support/leftovers.ts', 'test/package/pack-once.ts'],
          testTimeout: 60_000,
          hookTimeout: 800_000,
          pool: 'forks',
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The author's loop (`npm run test:fast`): the unit tests that start no process or server.
        test: {
          name: 'fast',
          // Never empty (an empty include would mean vitest's default, every test).
          include: fastTests.length > 0 ? fastTests : ['test/none'],
          setupFiles: ['test/support/no-processes.ts'],
          testTimeout: 20_000,
          pool: 'threads',
        },
      },
    ],
  },
});
