/**
 * The load engines behind one interface, as undici's Dispatcher is one interface for its clients:
 * `runLoad` picks one by name and never branches on which it is. `node` is the node engine on raw
 * sockets (the default, for its cost per request), `node-undici` the same engine on undici (its
 * closed model is autocannon), `k6` the k6 binary. Each runs a scenario through the one lifecycle
 * (scenario-lifecycle.ts) as a driver that only makes the load; test/engines/load/scenario-lifecycle.test.ts
 * runs the same contract against all three.
 */
import type { Scenario } from '../../protocol/scenario.ts';
import type { ScenarioResult } from '../../results/load-run.ts';
import { findK6 } from './k6/k6-binary.ts';
import { k6Lacks } from './k6/k6-support.ts';
import { runK6Scenario } from './k6/run-k6-scenario.ts';
import type { EngineName, LoadSettings } from './load-settings.ts';
import { runScenario, type ScenarioRun } from './run-scenario.ts';

export interface LoadEngine {
  readonly name: EngineName;
  /** Why the engine cannot run this scenario (one clause), or undefined when it can. */
  lacks(scenario: Pick<Scenario, 'fanout'>): string | undefined;
  /**
   * Once per run, before the target starts, when a scenario will run on the engine: what a missing
   * engine costs is then one line, not a started reference (k6 is found or built here).
   */
  prepare(settings: LoadSettings, log: (line: string) => void): Promise<PreparedEngine>;
}

export interface PreparedEngine {
  /** How the console's scenario line starts (`k6 v2.0.0 × 2 segments, `); empty for the default engine. */
  readonly label: string;
  run(run: ScenarioRun): Promise<ScenarioResult>;
}

const nodeEngine: LoadEngine = {
  name: 'node',
  lacks: () => undefined,
  prepare: async () => ({ label: '', run: (run) => runScenario(run, 'net') }),
};

const nodeUndiciEngine: LoadEngine = {
  name: 'node-undici',
  lacks: () => undefined,
  prepare: async () => ({ label: 'node-undici, ', run: (run) => runScenario(run, 'undici') }),
};

const k6Engine: LoadEngine = {
  name: 'k6',
  lacks: k6Lacks,
  prepare: async (settings, log) => {
    const k6 = await findK6({ log });
    const segments = settings.segments ?? 1;
    return {
      // Said only of a k6 without the harness's extension: its VUs read answers whole (docs/load.md).
      label: `k6 v${k6.version}${k6.boundedReads ? '' : ' (without k6/x/svc-harness: answers read whole)'}${segments > 1 ? ` × ${segments} segments` : ''}, `,
      run: (run) => runK6Scenario(run, k6, segments),
    };
  },
};

export const loadEngines: Readonly<Record<EngineName, LoadEngine>> = {
  node: nodeEngine,
  'node-undici': nodeUndiciEngine,
  k6: k6Engine,
};
