/**
 * The one suite file: every case file of conformance/<area>/*.cases.ts is found by reading the folders
 * and registered here (`registerSuites`), so a case file needs no file of its own to run. `svc-harness
 * conformance` hands it the target, areas and case files of its run; plain vitest reads the SVC_*
 * environment and registers every area.
 */
import { fileURLToPath } from 'node:url';
import { registerSuites } from '../src/engines/conformance/suite-api.ts';
import { closeSinkAfterAll } from './support/messaging-sink.ts';

await registerSuites(fileURLToPath(new URL('.', import.meta.url)));
// The messaging cases' sink is started on first use and closed once every case has run.
closeSinkAfterAll();
