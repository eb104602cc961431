/**
 * The README's `npx svc-harness run --target staging.json`, verbatim, in a project of its own (made as
 * install.test.ts makes one, side by side with it), against the reference the README's own stand-in line
 * starts: `serve … --write-target staging.json &`.
 */
import { existsSync } from 'node:fs';
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
import { firstGateLines, readme, shell } from './readme-blocks.ts';

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
});
