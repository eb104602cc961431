import { defineConfig } from 'vitest/config';

// Two projects: the project's own tests (`npm test`) and the conformance suites, which the
// `svc-harness conformance` command runs through vitest's Node API against a target.
// Under CI a JSON report is written too, so .ci/run can print a closing "N passed, N failed" line.
/** The tests that pack, install and build images of the harness. */
const packageTests = ['test/package/**/*.test.ts', 'test/cli/image-target.test.ts'];

export default defineConfig({
  test: {
    // Two test files at a time. Vitest's default on these 2-core machines is one (cores - 1), and most
    // of this suite's time is spent waiting on child processes, servers and timed load runs: measured
    // here, `npm test` took 718 s with one and 412 s with two, all 796 tests passing in both.
    maxWorkers: 2,
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'reports/vitest-unit.json' }]] : ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: packageTests,
          // Fails the run when a test leaves a redis-server or an svc-* temporary folder behind.
          globalSetup: ['test/support/leftovers.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
      {
        // The package as users get it: packed, installed, built into images. They build (tsc, npm, podman)
        // for minutes and took the CPU the other tests' timed CLI runs needed (two of those timed out in
        // CI beside them), so they run after the unit tests (`groupOrder`), in the same `npm test`.
        test: {
          name: 'package',
          include: packageTests,
          globalSetup: ['test/support/leftovers.ts'],
          testTimeout: 60_000,
          hookTimeout: 800_000,
          pool: 'forks',
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'conformance',
          // One suite file: it discovers and registers every conformance/<area>/*.cases.ts.
          // .js in the published package, where the suites ship built (src/shared/source-files.ts).
          include: ['conformance/suites.test.{ts,js}'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
