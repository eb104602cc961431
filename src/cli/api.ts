/**
 * The programmatic API, the package's main export (`import { runConformance } from 'svc-harness'`), as
 * autocannon and vitest offer theirs: run conformance, load or both against a target and get the report
 * model back; pass reporters (`createReporters`) to write the files the CLI writes. It is the CLI's
 * sibling: the same engines, no argv, no exit.
 */
export { type ConformanceOptions, runConformance } from '../engines/conformance/run-conformance.ts';
export type { RunCommonOptions } from '../engines/context/run-context.ts';
export { defaultLoadSettings, type LoadSettings } from '../engines/load/load-settings.ts';
export { type LoadOptions, runLoad } from '../engines/load/run-load.ts';
export { type MainJobOptions, runMainJob } from '../engines/run/main-job.ts';
export { runSoak, type SoakOptions, type SoakRun } from '../engines/soak/run-soak.ts';
export { defineScenario } from '../protocol/scenario.ts';
export { createReporters, type ReporterOptions } from '../reporters/registry.ts';
export type { CaseResult, ConformanceRun } from '../results/conformance-run.ts';
export type { HarnessRun } from '../results/harness-run.ts';
export type { LoadRun, ScenarioResult } from '../results/load-run.ts';
export type {
  FaultChange,
  LoadProgress,
  MessageProgress,
  PhaseChange,
  Reporter,
  ResourceReading,
  RunEndContext,
  RunStart,
  ScenarioStart,
} from '../results/reporter.ts';
export type { Target } from '../target/target.ts';
export { defineConfig, type SvcHarnessConfig } from './config-file.ts';
