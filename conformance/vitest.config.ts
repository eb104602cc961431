/**
 * The conformance runner's own vitest configuration (src/engines/conformance/vitest-runner.ts loads it,
 * with the suites' folder's parent as the root): apart from the repository's vitest.config.ts, whose
 * test projects, slow-test table and sequencer are the project's own tests' business. The published
 * package runs its suites with this file alone. Also for plain vitest with a target from the
 * environment: `npx vitest run --config conformance/vitest.config.ts`.
 */
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: join(import.meta.dirname, '..'),
    // One suite file, the runner's entry: it discovers and registers every conformance/<area>/*.cases.ts.
    // .js in the published package, where the suites ship built (src/shared/source-files.ts).
    include: ['src/engines/conformance/suite-entry.{ts,js}'],
    testTimeout: 30_000,
  },
});
