/**
 * The one suite file vitest runs (conformance/vitest.config.ts includes it): every case file of
 * conformance/<area>/*.cases.ts is found by reading the folders and registered here (`registerSuites`),
 * so a case file needs no file of its own to run. It is the runner's, not the suites': the engine reaches
 * the suites only by path, and they import nothing of it (issue 37). `svc-harness conformance` hands it
 * the target, areas and case files of its run; plain vitest reads the SVC_* environment and registers
 * every area. What the suites share across cases (the messaging sink) closes after the last case
 * (`onSuitesEnd`, src/suite-kit/suite-end.ts).
 */
import { registerSuites } from './register-cases.ts';
import { suitesDir } from './repo-paths.ts';

await registerSuites(suitesDir);
