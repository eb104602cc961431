/**
 * The README's `npx svc-harness run --target staging.json`, verbatim, in a project of its own (made as
 * install.test.ts makes one, side by side with it), against the reference the README's own stand-in line
 * starts: `serve … --write-target staging.json &`. And the README's soak, watched through its NDJSON,
 * verbatim: the installed package starts the reference as a process of its own and kills it.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { waitFor } from '../support/processes.ts';
import { startProcess } from '../support/run-cli.ts';
import {
  expectMainJobCompleted,
  newReportDir,
  readReport,
  reportFolders,
  useConsumerProject,
} from './consumer-project.ts';
import { example, firstGateLines, readme, shell } from './readme-blocks.ts';

let project: string;
useConsumerProject((made) => {
  project = made;
});

describe('svc-harness installed from its tarball, run against a target file', () => {
  test("the README's run --target staging.json, against the reference its own line starts in its stead", async () => {
    const line = (await firstGateLines())[3]?.command ?? '';
    expect(line).toBe('npx svc-harness run --target staging.json');
    const standIn = (await readme())
      .replace(/\s+/g, ' ')
      .match(/`(npx svc-harness serve [^`]*--write-target staging\.json) &`/)?.[1];
    expect(standIn, 'the README says how to let the reference stand in').toBeDefined();
    const serve = startProcess('bash', ['--noprofile', '--norc', '-c', `exec ${standIn}`], {
      cwd: project,
      timeoutMs: 600_000,
    });
    try {
      expect(await waitFor(() => existsSync(join(project, 'staging.json')), 60_000), serve.stdout()).toBe(true);
      const before = await reportFolders(project);
      const done = await shell(line, 600_000, project);
      const context = `${done.stdout.slice(-3000)}\n${done.stderr.slice(-2000)}`;
      const report = await readReport(await newReportDir(project, before));
      expect(done.stdout, context).not.toContain('embedded reference');
      expectMainJobCompleted(done.exitCode, done.stdout, report, context);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.finished;
    }
  }, 700_000);

  test("the README's soak, verbatim: the reference killed under publish fan-out, watched in NDJSON, nothing lost", async () => {
    const line = (await example('sh', 'npx svc-harness soak')).trim();
    const before = await reportFolders(project);
    const done = await shell(line, 300_000, project);
    const context = `${done.stdout.slice(-3000)}\n${done.stderr.slice(-2000)}`;
    // A faulted run's latency and error rate may fail the scenario's thresholds (99); nothing else may.
    expect([0, 99], context).toContain(done.exitCode);
    const dir = await newReportDir(project, before);
    const soak = JSON.parse(await readFile(join(dir, 'soak.json'), 'utf8')) as {
      faults: { action: string; error?: string }[];
      problems: string[];
    };
    expect(soak.problems, context).toEqual([]);
    // Every 10 s over 30 s: at 10 s, about 20 s, and about 30 s when the jitter moves it inside the run.
    expect(soak.faults.length).toBeGreaterThanOrEqual(2);
    for (const fault of soak.faults) expect([fault.action, fault.error]).toEqual(['kill', undefined]);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as {
      load: {
        scenarios: {
          messaging: { accepted: number; delivery: { expected: number; received: number; lost: number } };
        }[];
      };
    };
    const messaging = report.load.scenarios[0]?.messaging;
    expect(messaging?.accepted).toBeGreaterThan(0);
    expect(messaging?.delivery, context).toMatchObject({ lost: 0, expected: (messaging?.accepted ?? 0) * 8 });
    // The watch: points while the load ran, before the scenario's end, and the run's end last.
    const lines = (await readFile(join(project, 'live', 'soak.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    const end = lines.findIndex((record) => record.event === 'scenario_end');
    expect(
      lines.slice(0, end).filter((record) => record.type === 'point' && record.final !== true).length,
    ).toBeGreaterThan(10);
    expect(lines.at(-1)?.event).toBe('run_end');
  }, 320_000);
});
