import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createReporters } from '../../src/reporters/registry.ts';
import { conformanceOnly } from '../../src/results/harness-run.ts';
import { reporterEvents } from '../../src/results/reporter.ts';
import { createRedactor } from '../../src/shared/redact.ts';
import { sampleCatalog, sampleRun } from './sample-run.ts';

const reportFiles = ['report.json', 'junit.xml', 'summary.md'];

describe('the file reporters', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  test('writes the three files into the report folder, redacted', async () => {
    const base = await mkdtemp(join(tmpdir(), 'svc-reports-'));
    dirs.push(base);
    const dir = join(base, 'nested', 'run');
    // runConformance creates the folder before the run; the reporters only write into it.
    await mkdir(dir, { recursive: true });
    const secret = 'Unauthorized';
    const events = reporterEvents(createReporters(['json', 'junit', 'markdown']));
    await events.onRunEnd(conformanceOnly({ ...sampleRun, reportDir: dir }), {
      catalog: sampleCatalog,
      redact: createRedactor([secret]),
    });
    expect((await readdir(dir)).sort()).toEqual([...reportFiles].sort());
    for (const name of reportFiles) {
      const text = await readFile(join(dir, name), 'utf8');
      expect(text).not.toContain(secret);
      expect(text).toContain('[redacted]');
    }
  });

  test('a reporter that fails leaves the others writing their files, and the error names it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-reports-'));
    dirs.push(dir);
    const broken = {
      name: 'broken',
      file: 'broken.txt',
      onRunEnd: () => {
        throw new Error('Invalid string. Length must be a multiple of 4');
      },
    };
    const [json, ...rest] = createReporters(['json', 'junit', 'markdown']);
    const events = reporterEvents([json as (typeof rest)[number], broken, ...rest]);
    const ended = events.onRunEnd(conformanceOnly({ ...sampleRun, reportDir: dir }), {
      catalog: sampleCatalog,
      redact: createRedactor([]),
    });
    await expect(ended).rejects.toThrow(
      /a reporter failed, the others wrote their files: broken \(broken.txt\): Invalid string/,
    );
    await expect(ended).rejects.toMatchObject({ code: 'SVC_REPORTER' });
    expect((await readdir(dir)).sort()).toEqual([...reportFiles].sort());
  });
});
