/**
 * What the package tests share: the README's blocks read verbatim, a user's project made by `npm init -y`
 * as it is with the packed tarball installed by the README's own line, and how a main job's report is
 * judged on a machine the other tests load. The tarball is packed, and a project made with it installed,
 * once for the package project (pack-once.ts, a global setup), handed over by `inject`.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { expectLoadCompleted } from '../support/cli-expect.ts';
import { startProcess } from '../support/run-cli.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The tarball the README's `npm pack` line wrote (pack-once.ts). */
    tarball: string;
    /** A new user's project with that tarball installed by the README's line, for each file to copy (pack-once.ts). */
    consumerTemplate: string;
  }
}

/** Runs `program` in `cwd`; it must exit 0. */
export async function run(program: string, args: readonly string[], timeoutMs: number, cwd: string) {
  const done = await startProcess(program, args, { cwd, timeoutMs }).finished;
  expect(done.exitCode, `${program} ${args.join(' ')}\n${done.stderr.slice(-3000)}`).toBe(0);
  return done;
}

/** The tarball the package project's global setup packed with the README's line. */
export const packedTarball = () => inject('tarball');

/**
 * A new user's project: a copy of the one the package project's global setup made by `npm init -y` as it
 * is, with the README's install line for the packed tarball run in it (pack-once.ts). Symbolic links are
 * copied as they are (node_modules/.bin's are relative), so the copy runs as the original does.
 */
export async function consumerProject(): Promise<string> {
  const project = await mkdtemp(join(tmpdir(), 'harness-consumer-'));
  await cp(inject('consumerTemplate'), project, { recursive: true, verbatimSymlinks: true });
  expect(JSON.parse(await readFile(join(project, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
  expect(existsSync(join(project, 'node_modules', '.bin', 'svc-harness'))).toBe(true);
  return project;
}

/**
 * The file's own consumer project: made before its tests (handed to `use`), removed after them. Each
 * package test file has one, so the files run side by side.
 */
export function useConsumerProject(use: (project: string) => void): void {
  let project: string | undefined;
  beforeAll(async () => {
    project = await consumerProject();
    use(project);
  }, 300_000);
  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });
}

/** The report folders under the project's reports/. */
export const reportFolders = async (project: string) =>
  existsSync(join(project, 'reports')) ? await readdir(join(project, 'reports')) : [];

/** The one report folder a run without --report-dir wrote under reports/ since `before`. */
export async function newReportDir(project: string, before: readonly string[]): Promise<string> {
  const after = await reportFolders(project);
  const fresh = after.filter((name) => !before.includes(name) && /^\d{4}-/.test(name));
  expect(fresh, `report folders: ${after.join(', ')}`).toHaveLength(1);
  return join(project, 'reports', fresh[0] ?? '');
}

export interface MainJobReport {
  readonly totals: { readonly total: number; readonly fail: number; readonly error: number };
  readonly load: {
    readonly scenarios: readonly {
      readonly thresholds: readonly { readonly expression: string; readonly ok: boolean }[];
    }[];
  };
}

export const readReport = async (dir: string) =>
  JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as MainJobReport;

/**
 * The main job as a package test judges it: conformance passed whole, and of the load's thresholds only a
 * latency bound may fail. These tests run beside the exhaustive fault runs, which fill both cores; a
 * latency gate is judged by .ci/run's own main job and by the benchmarks, never by a test on a loaded
 * machine (a slower CI machine failed all three package tests on `http_req_duration{batch:1}`).
 */
export function expectMainJobCompleted(
  exitCode: number | null,
  stdout: string,
  report: MainJobReport,
  context: string,
) {
  expect(report.totals.total, context).toBeGreaterThan(100);
  expect(report.totals.fail, context).toBe(0);
  expect(report.totals.error, context).toBe(0);
  expectLoadCompleted(exitCode, report.load.scenarios, context);
  expect(stdout).toContain(exitCode === 0 ? 'gate: passed (exit code 0)' : 'gate: failed (exit code 99)');
}
