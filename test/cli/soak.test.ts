/**
 * `svc-harness soak` as a user runs it, on compressed schedules (seconds, not hours): the reference
 * (started by the soak as `serve` over a Redis of its own) killed and paused under publish fan-out with
 * every accepted publish delivered; network faults on both paths through a real toxiproxy; a target
 * file's process (a third-party key-value implementation from npm) killed and started again; and bad
 * input as one line. The latency of a faulted run is nobody's gate here: its thresholds may fail (99).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defaultLoadSettings } from '../../src/engines/load/load-settings.ts';
import { runSoak } from '../../src/engines/soak/run-soak.ts';
import type { RedisBacking } from '../../src/reference/redis/redis-backing.ts';
import { allFaults } from '../../src/reference/reference-areas.ts';
import { createHtmlReporter } from '../../src/reporters/html-report.ts';
import { createMarkdownReporter } from '../../src/reporters/summary-md.ts';
import { findFreePort } from '../../src/shared/free-port.ts';
import { startTestRedis } from '../support/reference-fixture.ts';
import { repoRoot, runCli } from '../support/run-cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-soak-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface SoakJson {
  readonly implementation: string;
  readonly timeline: readonly { readonly id: string; readonly fault: string }[];
  readonly faults: readonly {
    readonly id: string;
    readonly action: string;
    readonly error?: string;
    readonly cut?: true;
    readonly startAt: number;
    readonly healedAt: number;
  }[];
  readonly problems: readonly string[];
  readonly check: {
    readonly ok: boolean;
    readonly thresholds: readonly {
      readonly expression: string;
      readonly metric: string;
      readonly ok: boolean;
      readonly value: number | null;
    }[];
    readonly scenarios: readonly {
      readonly acknowledged: number;
      readonly refused: number;
      readonly indeterminate: { readonly total: number; readonly delivered: number; readonly undelivered: number };
      readonly lostCount: number;
      readonly unexpected: number;
      readonly faults: readonly { readonly id: string; readonly errors: number; readonly cut?: true }[];
    }[];
  };
  readonly trends: {
    readonly intervalMs: number;
    readonly series: readonly {
      readonly process: string;
      readonly samples: number;
      readonly lifetimes: number;
      readonly rssMb: { readonly first: number; readonly last: number; readonly min: number; readonly max: number };
      readonly slopeMbPerH: { readonly value: number; readonly lower: number; readonly upper: number } | null;
      readonly cpuCores: { readonly mean: number | null };
      readonly points: readonly unknown[];
    }[];
  };
  readonly exitCode: number;
}

/** A threshold's result in soak.json, by its expression. */
const thresholdOf = (run: { soak?: SoakJson }, expression: string) =>
  run.soak?.check.thresholds.find((item) => item.expression === expression);

/**
 * The checker against the load's own counters, exactly: every answered or unanswered publish has one
 * fate, the acknowledged ones are the accepted marks, and none of them is lost.
 */
function expectCheckedClean(run: { soak?: SoakJson; report?: SoakReport }, context: string): void {
  const scenario = run.report?.load.scenarios[0];
  const check = run.soak?.check.scenarios[0];
  expect(check, context).toBeDefined();
  expect(check?.acknowledged).toBe(scenario?.messaging?.accepted);
  expect((check?.acknowledged ?? 0) + (check?.refused ?? 0) + (check?.indeterminate.total ?? 0)).toBe(
    (scenario?.requests.completed ?? 0) + (scenario?.requests.failed ?? 0),
  );
  expect(check, context).toMatchObject({ lostCount: 0, unexpected: 0 });
  expect(run.soak?.check.thresholds).toContainEqual({
    expression: 'lost: count == 0',
    metric: 'lost',
    source: 'soak',
    ok: true,
    value: 0,
  });
}

interface Delivery {
  readonly expected: number;
  readonly received: number;
  readonly lost: number;
  readonly unexpected: number;
}

interface SoakReport {
  readonly load: {
    readonly scenarios: readonly {
      readonly requests: { readonly completed: number; readonly failed: number };
      readonly messaging?: { readonly accepted: number; readonly delivery?: Delivery };
    }[];
  };
}

async function soak(name: string, args: readonly string[], timeoutMs = 150_000) {
  const reportDir = join(dir, name);
  const done = await runCli(['soak', ...args, '--report-dir', reportDir], { reportDir, timeoutMs });
  const soakFile = join(reportDir, 'soak.json');
  const soakJson = existsSync(soakFile) ? (JSON.parse(await readFile(soakFile, 'utf8')) as SoakJson) : undefined;
  return { ...done, soak: soakJson, report: done.report as SoakReport | undefined };
}

const context = (run: { stdout: string; stderr: string }) => `${run.stdout.slice(-2500)}\n${run.stderr.slice(-1500)}`;

describe('svc-harness soak', () => {
  test('the reference killed twice and paused under publish fan-out: every accepted publish delivered to every endpoint, 0 lost', async () => {
    const run = await soak('reference-kills', [
      'publish-fanout',
      '--duration',
      '9s',
      '--rate',
      '30',
      '--fault',
      'kill every 4s after 2s',
      '--fault',
      'pause 700ms every 4s after 4s',
    ]);
    expect([0, 99], context(run)).toContain(run.exitCode);
    expect(run.soak?.implementation).toBe('reference');
    expect(run.soak?.problems).toEqual([]);
    const done = run.soak?.faults ?? [];
    // Process faults go in turn: one due while the last is on waits, and one whose turn comes after the
    // run ended is not done (a slow machine's restarts ran late, and the last pause's turn came past the
    // 9 s). So the done are the planned ones in order, all but perhaps that last pause.
    const planned = run.soak?.timeline.map((item) => [item.id, item.fault.split(' ')[0], undefined]) ?? [];
    expect(done.map((fault) => [fault.id, fault.action, fault.error])).toEqual(planned.slice(0, done.length));
    expect(done.length).toBeGreaterThanOrEqual(3);
    expect(done.filter((fault) => fault.action === 'kill')).toHaveLength(2);
    const scenario = run.report?.load.scenarios[0];
    const delivery = scenario?.messaging?.delivery;
    // Eight endpoints by default: each accepted publish is expected at each.
    expect(scenario?.messaging?.accepted).toBeGreaterThan(0);
    expect(delivery?.expected).toBe((scenario?.messaging?.accepted ?? 0) * 8);
    expect(delivery, context(run)).toMatchObject({ lost: 0 });
    // A publish the kill left unanswered may still have been taken and delivered: the load's counters
    // call its arrivals unexpected (it has no accepted mark), the checker a delivered indeterminate, and
    // its own `unexpected` (expectCheckedClean) stays 0: every arrival is explained.
    const indeterminate = run.soak?.check.scenarios[0]?.indeterminate;
    if (indeterminate?.delivered === 0) expect(delivery?.unexpected, context(run)).toBe(0);
    else expect(delivery?.unexpected, context(run)).toBeGreaterThan(0);
    expect(delivery?.received).toBe(delivery?.expected);
    // The kills cost the publisher: requests refused or reset while the reference was down.
    expect(scenario?.requests.failed).toBeGreaterThan(0);
    expect(run.stdout).toMatch(new RegExp(`^soak: ${done.length} of 4 faults done \\(seed 1\\)`, 'm'));
    expectCheckedClean(run, context(run));
    // Per fault: the kills' publishes went unanswered while the reference was down, counted on the kill.
    const recoveries = run.soak?.check.scenarios[0]?.faults ?? [];
    expect(recoveries.map((fault) => fault.id)).toEqual(done.map((fault) => fault.id));
    const killErrors = recoveries.filter((fault) => fault.id.startsWith('f1-')).reduce((sum, f) => sum + f.errors, 0);
    // Each error of a kill is a publish sent while it lasted that had no answer, or an error answer from a
    // reference still starting (one in flight as it struck was sent before it: indeterminate, but not the
    // kill's error).
    expect(killErrors).toBeGreaterThan(0);
    const checked = run.soak?.check.scenarios[0];
    expect(killErrors, context(run)).toBeLessThanOrEqual((checked?.indeterminate.total ?? 0) + (checked?.refused ?? 0));
    // A slow machine's restart (4 s, seen) can leave no success after the heal before the run ends: "never".
    expect(run.stdout).toMatch(
      /^ {2}f1-1 kill every 4s after 2s: \d+ errors, first success ([\d.]+ s|never) after the heal/m,
    );
  }, 180_000);

  test('network faults on both paths through toxiproxy: latency on the target path, a partition of the sink, nothing lost', async () => {
    const run = await soak('network', [
      'publish-fanout',
      '--duration',
      '7s',
      '--rate',
      '30',
      '--fault',
      'latency 150ms±50ms for 1500ms every 5s after 1s',
      '--fault',
      'partition sink 1500ms every 5s after 3s',
      '--out',
      `json=${join(dir, 'network.ndjson')}`,
    ]);
    expect([0, 99], context(run)).toContain(run.exitCode);
    // Watched live: each fault's start and end are events of the NDJSON output, in the order they happened.
    const events = (await readFile(join(dir, 'network.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event?: string; fault_id?: string; path?: string })
      .filter((record) => record.event === 'fault_start' || record.event === 'fault_end');
    expect(events.filter((record) => record.event === 'fault_start').map((record) => record.fault_id)).toEqual(
      run.soak?.faults.map((fault) => fault.id),
    );
    expect(events.filter((record) => record.event === 'fault_end')).toHaveLength(run.soak?.faults.length ?? -1);
    expect(events.find((record) => record.fault_id === 'f2-1')?.path).toBe('sink');
    expect(run.soak?.faults.map((fault) => [fault.id, fault.error])).toEqual(
      run.soak?.timeline.map((item) => [item.id, undefined]),
    );
    expect(new Set(run.soak?.faults.map((fault) => fault.action))).toEqual(new Set(['latency', 'partition']));
    // Each lasted its length, but the one the run's end cut short: healed no earlier than its planned end
    // (from its planned start: a loaded toxiproxy may take a while to put it on, which its window does not wait for).
    const origin = Date.parse((run.soak as unknown as { startedAt: string }).startedAt);
    for (const fault of (run.soak?.faults ?? []).filter((item) => item.cut !== true)) {
      const planned = (fault as unknown as { plannedStartMs: number }).plannedStartMs;
      expect(fault.healedAt - (origin + planned), JSON.stringify(fault)).toBeGreaterThanOrEqual(1450);
    }
    const delivery = run.report?.load.scenarios[0]?.messaging?.delivery;
    expect(delivery, context(run)).toMatchObject({ lost: 0, unexpected: 0 });
    expect(delivery?.received).toBe(delivery?.expected);
    expectCheckedClean(run, context(run));
  }, 180_000);

  test('the reference killed twice under transactions: after each recovery its counters hold every increment committed before the read', async () => {
    const run = await soak('transactions', [
      'transaction',
      '--duration',
      '9s',
      '--rate',
      '40',
      '--fault',
      'kill every 4s after 2s',
    ]);
    expect([0, 99], context(run)).toContain(run.exitCode);
    const soakJson = run.soak as SoakJson & {
      check: {
        updates: {
          recoveries: { faultId: string; lost: number; counters: { value: number; committed: number }[] }[];
        }[];
      };
    };
    const recoveries = soakJson.check.updates[0]?.recoveries ?? [];
    // One read-back after each kill's heal, each with every counter at or above what was committed before it.
    expect(recoveries.map((item) => [item.faultId, item.lost])).toEqual([
      ['f1-1', 0],
      ['f1-2', 0],
    ]);
    for (const item of recoveries) {
      expect(item.counters).toHaveLength(4);
      for (const counter of item.counters) {
        expect(counter.committed).toBeGreaterThan(0);
        expect(counter.value).toBeGreaterThanOrEqual(counter.committed);
      }
    }
    expect(soakJson.check.thresholds).toContainEqual({
      expression: 'recovery_lost_updates: count == 0',
      metric: 'recovery_lost_updates',
      source: 'soak',
      ok: true,
      value: 0,
    });
    expect(run.stdout).toMatch(/^soak: transaction after f1-1: 0 lost updates \(0=\d+≥\d+/m);
  }, 180_000);

  test('the trends: the reference and the harness sampled through the load, a slope threshold that holds and one that cannot', async () => {
    const run = await soak('trends', [
      'command',
      '--duration',
      '4s',
      '--rate',
      '20',
      '--threshold',
      'rss_slope_mb_per_h: value<100000',
      '--threshold',
      'rss_slope_mb_per_h{process:harness}: upper<100000',
      '--threshold',
      'cpu_cores{process:implementation}: avg<64',
      '--threshold',
      'rss_slope_mb_per_h{process:implementation}: value<-100000',
      '--out',
      `json=${join(dir, 'trends.ndjson')}`,
    ]);
    expect(run.exitCode, context(run)).toBe(99);
    // Every 250 ms over 4 s (4 s / 30 is under the floor).
    expect(run.soak?.trends.intervalMs).toBe(250);
    const series = run.soak?.trends.series ?? [];
    expect(series.map((item) => item.process)).toEqual(['implementation', 'harness']);
    for (const item of series) {
      expect(item.samples, item.process).toBeGreaterThan(8);
      expect(item.points).toHaveLength(item.samples);
      expect(item.lifetimes).toBe(1);
      // A node process's resident memory: tens to hundreds of MB, not bytes and not gigabytes.
      expect(item.rssMb.first, item.process).toBeGreaterThan(10);
      expect(item.rssMb.max, item.process).toBeLessThan(4000);
      expect(item.slopeMbPerH, item.process).not.toBeNull();
      expect(item.cpuCores.mean, item.process).toBeGreaterThanOrEqual(0);
    }
    // Live too: every sample a process_* point of the NDJSON output as it was taken, the same values.
    const live = (await readFile(join(dir, 'trends.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { metric?: string; value?: number; labels?: { process?: string } });
    for (const item of series) {
      const memory = live.filter(
        (record) => record.metric === 'process_resident_memory_bytes' && record.labels?.process === item.process,
      );
      expect(
        memory.map((record) => Math.round(((record.value ?? 0) / 1024 / 1024) * 1000) / 1000),
        item.process,
      ).toEqual((item.points as { rssMb: number }[]).map((point) => point.rssMb));
      // Cores from the second sample of a lifetime on.
      expect(
        live.filter((record) => record.metric === 'process_cpu_cores' && record.labels?.process === item.process),
      ).toHaveLength(item.samples - 1);
    }
    expect(thresholdOf(run, 'rss_slope_mb_per_h: value < 100000')?.ok).toBe(true);
    expect(thresholdOf(run, 'rss_slope_mb_per_h{process:harness}: upper < 100000')?.ok).toBe(true);
    expect(thresholdOf(run, 'cpu_cores{process:implementation}: avg < 64')?.ok).toBe(true);
    expect(thresholdOf(run, 'rss_slope_mb_per_h{process:implementation}: value < -100000')?.ok).toBe(false);
    expect(run.stdout).toMatch(
      /^soak: trend implementation rss [\d.]+ MB → [\d.]+ MB, slope [+−][\d.]+ MB\/h \(95% CI [+−][\d.]+ … [+−][\d.]+\), cpu [\d.]+ cores \(\d+ samples, 1 lifetime\)$/m,
    );
    expect(run.stdout).toMatch(/^soak: trend harness rss /m);
    expect(run.stdout).toMatch(
      /^soak threshold rss_slope_mb_per_h\{process:implementation\}: value < -100000: FAILED/m,
    );
    const markdown = await readFile(join(dir, 'trends', 'summary.md'), 'utf8');
    expect(markdown).toContain('### Trends: memory and CPU');
    expect(markdown).toMatch(/^\| implementation \| [\d.]+ MB → [\d.]+ MB \|/m);
    expect(await readFile(join(dir, 'trends', 'index.html'), 'utf8')).toContain('<h3>Trends: memory and CPU</h3>');
  }, 120_000);

  test('--baseline: the soak’s load compared with an earlier soak’s report, as load compares', async () => {
    const args = ['command', '--duration', '3s', '--rate', '20', '--fault', 'pause 300ms every 1m after 1s'];
    const before = await soak('baseline-before', args);
    expect([0, 99], context(before)).toContain(before.exitCode);
    const after = await soak('baseline-after', [...args, '--baseline', join(dir, 'baseline-before')]);
    // A regression beyond the tolerances exits 98; two like runs on a quiet machine should not differ.
    expect([0, 98, 99], context(after)).toContain(after.exitCode);
    const compare = (after.report as { compare?: { scenarios?: { name: string }[] } } | undefined)?.compare;
    expect(compare, context(after)).toBeDefined();
    expect(JSON.stringify(compare)).toContain('command');
  }, 120_000);

  test('a kill in the last second under transactions: the soak waits for the restart before the scenario reads back and finishes', async () => {
    const run = await soak('kill-at-the-end', [
      'transaction',
      '--duration',
      '4s',
      '--rate',
      '40',
      '--fault',
      'kill every 1m after 3800ms',
    ]);
    // Before the final heal, the finish met a reference still down: "finish failed … refused", exit 2.
    expect([0, 99], context(run)).toContain(run.exitCode);
    const scenario = run.report?.load.scenarios[0] as { problem?: string | null } | undefined;
    expect(scenario?.problem ?? null, context(run)).toBeNull();
    const recoveries =
      (run.soak as unknown as { check: { updates: { recoveries: { faultId: string; lost: number }[] }[] } }).check
        .updates[0]?.recoveries ?? [];
    // The last kill's recovery is read back too, once the reference is ready again.
    expect(recoveries.map((item) => [item.faultId, item.lost])).toEqual([['f1-1', 0]]);
  }, 120_000);

  /**
   * The soak's own proof (issue 39 item 6), one per fault switch the soak's checker judges
   * (`judgedBy: 'soak'`: no conformance case can see them). The reference runs in-process through
   * runSoak, the API under the command, which can hand `serve` the switch and its record file.
   */
  const proofs: Record<string, () => Promise<void>> = {
    'publish-write-behind': async () => {
      const record = join(dir, 'write-behind.record');
      const reportDir = join(dir, 'write-behind');
      const run = await runSoak({
        scenarios: ['publish-fanout'],
        faults: ['kill every 9s after 5s'],
        // Each publish is one message: a lost key is one message id.
        settings: { ...defaultLoadSettings, durationS: 30, rate: 30, params: { endpoints: 1 } },
        serveArgs: ['--retry-backoff', '500ms', '--fault', 'publish-write-behind', '--fault-record', record],
        reportDir,
        reporters: [createMarkdownReporter(), createHtmlReporter()],
      });
      const lines = (await readFile(record, 'utf8')).trim().split('\n');
      const persisted = new Set(lines.filter((line) => line.startsWith('persisted ')).map((line) => line.slice(10)));
      const writing = new Set(lines.filter((line) => line.startsWith('writing ')).map((line) => line.slice(8)));
      const acknowledged = lines.filter((line) => line.startsWith('acknowledged ')).map((line) => line.slice(13));
      // What the reference may have lost: acknowledged, never stored as far as it saw (the kills took its
      // memory, or came before Redis answered its write); and what it lost for certain: never even written.
      const referenceLost = acknowledged.filter((id) => !persisted.has(id)).sort();
      const surelyLost = acknowledged.filter((id) => !writing.has(id));
      const check = run.findings.scenarios[0]?.check;
      const soakLost = (check?.lost ?? []).flatMap((item) => item.ids ?? ['(no id)']).sort();
      const kills = run.faults.filter((fault) => fault.action === 'kill' && fault.error === undefined);
      const summary = JSON.stringify({
        kills: kills.length,
        acknowledged: acknowledged.length,
        referenceLost: referenceLost.length,
        soakLost: soakLost.length,
        indeterminate: check?.indeterminate,
      });
      expect(kills.length, summary).toBe(3);
      // A proof that could not fail proves nothing: each kill took some.
      expect(soakLost.length, summary).toBeGreaterThan(kills.length);
      // Every message the soak calls lost, the reference says it lost: no blame on a message it kept.
      const referenceLostSet = new Set(referenceLost);
      expect(
        soakLost.filter((id) => !referenceLostSet.has(id)),
        summary,
      ).toEqual([]);
      // And every one it lost for certain the soak names, but for publishes it acknowledged into a socket
      // the kill closed (its record has them, the harness never had their answers: indeterminate, never lost).
      const soakLostSet = new Set(soakLost);
      expect(surelyLost.filter((id) => !soakLostSet.has(id)).length, summary).toBeLessThanOrEqual(
        acknowledged.length - (check?.acknowledged ?? 0),
      );
      // Each lost one is listed with the kill that took it.
      for (const item of check?.lost ?? [])
        expect(
          item.faults.some((id) => id.startsWith('f1-')),
          item.key,
        ).toBe(true);
      // The gate fails on them, and soak.json names them too.
      expect(run.findings.thresholds).toContainEqual(expect.objectContaining({ metric: 'lost', ok: false }));
      expect(run.exitCode).toBe(99);
      const soakJson = JSON.parse(await readFile(join(reportDir, 'soak.json'), 'utf8')) as {
        check: { scenarios: { lostCount: number; lost: { ids: string[] }[] }[] };
      };
      expect(soakJson.check.scenarios[0]?.lostCount).toBe(soakLost.length);
      expect(soakJson.check.scenarios[0]?.lost.flatMap((item) => item.ids).sort()).toEqual(soakLost);
      // The reports show them: a table per fault, the lost ids.
      const markdown = await readFile(join(reportDir, 'summary.md'), 'utf8');
      expect(markdown).toContain('## Soak under faults');
      expect(markdown).toContain(`| f1-1 kill every 9s after 5s |`);
      // The reports list the first 20 lost in soak.json's order (by publish), not the sorted ids' first.
      const firstShown = soakJson.check.scenarios[0]?.lost[0]?.ids[0] ?? 'no lost id in soak.json';
      expect(markdown).toContain(firstShown);
      expect(await readFile(join(reportDir, 'index.html'), 'utf8')).toContain(firstShown);
    },

    'exec-write-behind': async () => {
      const record = join(dir, 'exec-write-behind.record');
      const reportDir = join(dir, 'exec-write-behind');
      const run = await runSoak({
        scenarios: ['transaction'],
        faults: ['kill every 4s after 2s'],
        settings: { ...defaultLoadSettings, durationS: 13, rate: 30 },
        serveArgs: ['--retry-backoff', '500ms', '--fault', 'exec-write-behind', '--fault-record', record],
        reportDir,
      });
      // What the reference says it lost, per counter: increments acknowledged, never persisted.
      const lostByKey = new Map<string, number>();
      for (const line of (await readFile(record, 'utf8')).trim().split('\n')) {
        const [kind, key, count] = line.split(' ');
        // Lost at most: acknowledged, less what Redis answered it stored (`writing` lines are between).
        if (kind === 'writing') continue;
        const sign = kind === 'acknowledged' ? 1 : -1;
        lostByKey.set(key as string, (lostByKey.get(key as string) ?? 0) + sign * Number(count));
      }
      const referenceLost = [...lostByKey.values()].reduce((sum, value) => sum + value, 0);
      const kills = run.faults.filter((fault) => fault.action === 'kill' && fault.error === undefined);
      // In the order their read-backs answered (a read-back retried for a while can answer after the
      // next kill's): the shortfall each shows only grows.
      const recoveries = [...(run.findings.updates[0]?.recoveries ?? [])].sort((a, b) => a.at - b.at);
      const summary = JSON.stringify({ kills: kills.length, referenceLost, recoveries });
      expect(kills.length, summary).toBe(3);
      expect(recoveries.map((item) => item.faultId).sort()).toEqual(kills.map((fault) => fault.id).sort());
      // A proof that could not fail proves nothing: the first read-back after a kill (2 s of load before
      // it) is short, and no later one is less so. A kill begun right after the last was ready may take
      // nothing (a loaded machine's restarts ran late, and the next kill, due already, came 0.8 s after
      // one), so a later read-back must only not be less short.
      // A read-back that found the reference still starting past its 10 s is written down with its error
      // (a slower machine's first one was): the growth is asked of those that answered.
      const answered = recoveries.filter((item) => item.lost !== null && item.lost !== undefined);
      expect(answered.length, summary).toBeGreaterThanOrEqual(1);
      expect(answered[0]?.lost ?? 0, summary).toBeGreaterThan(0);
      let before = 0;
      for (const item of answered) {
        expect(item.lost ?? -1, summary).toBeGreaterThanOrEqual(before);
        before = item.lost ?? before;
      }
      // Every increment the soak calls lost, the reference says it lost: per counter, never more (an
      // unanswered transaction the reference had stored is indeterminate to the harness, never committed).
      const last = answered.at(-1);
      for (const counter of last?.counters ?? []) {
        const key = [...lostByKey.keys()].find((name) => name.endsWith(`:c:${counter.name}`)) ?? '';
        expect(counter.committed - counter.value, `${counter.name} ${summary}`).toBeLessThanOrEqual(
          lostByKey.get(key) ?? 0,
        );
      }
      expect(last?.lost ?? 0, summary).toBeLessThanOrEqual(referenceLost);
      // The gate fails on them, and the scenario's own finish finds the counters short too.
      expect(run.findings.thresholds).toContainEqual(
        expect.objectContaining({ metric: 'recovery_lost_updates', ok: false }),
      );
      expect(run.exitCode).toBe(99);
      expect(run.load.scenarios[0]?.accounting.lostUpdates ?? 0, summary).toBeGreaterThan(0);
    },
  };

  test('every fault switch the soak judges has its proof here', () => {
    const judged = allFaults.filter((fault) => fault.judgedBy === 'soak').map((fault) => fault.name);
    expect(judged.length).toBeGreaterThan(0);
    expect(Object.keys(proofs).sort()).toEqual(judged.sort());
  });

  test.each(Object.keys(proofs))(
    'the reference under %s, killed three times: the soak finds what it lost, as its own record says, and no more',
    (name) => (proofs[name] as () => Promise<void>)(),
    180_000,
  );

  test('on k6: the publishes k6 made are checked message by message, and what a kill took is listed by id', async () => {
    const record = join(dir, 'k6-write-behind.record');
    const run = await runSoak({
      scenarios: ['publish-fanout'],
      faults: ['kill every 8s after 4s'],
      settings: { ...defaultLoadSettings, engines: ['k6'], durationS: 14, rate: 30, params: { endpoints: 1 } },
      serveArgs: ['--retry-backoff', '500ms', '--fault', 'publish-write-behind', '--fault-record', record],
      reportDir: join(dir, 'k6-write-behind'),
    });
    const lines = (await readFile(record, 'utf8')).trim().split('\n');
    const persisted = new Set(lines.filter((line) => line.startsWith('persisted ')).map((line) => line.slice(10)));
    const referenceLost = new Set(
      lines
        .filter((line) => line.startsWith('acknowledged ') && !persisted.has(line.slice(13)))
        .map((line) => line.slice(13)),
    );
    const check = run.findings.scenarios[0]?.check;
    const soakLost = (check?.lost ?? []).flatMap((item) => item.ids ?? ['(no id)']);
    const summary = JSON.stringify({
      problems: run.problems,
      check: { ...check, lost: soakLost.length },
      referenceLost: referenceLost.size,
    });
    expect(
      run.problems.filter((line) => line.includes('not checked')),
      summary,
    ).toEqual([]);
    // k6's fates: every publish k6 sent and saw end has one (a request k6 stopped mid-way is cut short
    // and tells nothing), and its acknowledged ones carry their message ids.
    const load = run.load.scenarios[0];
    expect(load?.engine, summary).toBe('k6');
    const cutShort = load?.errors.find((item) => item.kind === 'cut-short')?.count ?? 0;
    const told = (check?.acknowledged ?? 0) + (check?.refused ?? 0) + (check?.indeterminate.total ?? 0);
    expect(told, summary).toBeGreaterThanOrEqual((load?.requests.sent ?? 0) - cutShort);
    expect(told, summary).toBeLessThanOrEqual(load?.requests.sent ?? 0);
    expect(told, summary).toBeGreaterThan(300);
    // The kills took some, each listed by the id the reference says it lost, and none it kept.
    expect(soakLost.length, summary).toBeGreaterThan(0);
    expect(
      soakLost.filter((id) => !referenceLost.has(id)),
      summary,
    ).toEqual([]);
    expect(run.exitCode).toBe(99);
  }, 180_000);

  describe("a target file's process", () => {
    let redis: RedisBacking;
    beforeAll(async () => {
      redis = await startTestRedis();
    });
    afterAll(() => redis?.stop());

    /** A target file whose `process` runs a key-value server of `script` on a free port, on Redis database `db`. */
    async function processTarget(name: string, script: string, db: number, env: Record<string, string> = {}) {
      const port = await findFreePort();
      const target = join(dir, `${name}.json`);
      await writeFile(
        target,
        JSON.stringify({
          name,
          kv: { url: `http://127.0.0.1:${port}`, token: 'soak-token-0123456789' },
          process: {
            command: process.execPath,
            args: [join(repoRoot, script)],
            env: {
              PORT: String(port),
              URS_TOKEN: 'soak-token-0123456789',
              REDIS_URL: `${redis.url.replace(/\/+$/, '')}/${db}`,
              ...env,
            },
            ready: { port },
          },
        }),
      );
      return target;
    }

    test('a third-party key-value server (npm) killed and restarted by the soak, at the address its target names', async () => {
      const target = await processTarget('hwc', 'test/third-party/hwc-server.ts', 4);
      const run = await soak('process', [
        // Its pipeline endpoint: it answers no path form (GET /get/k is its 404).
        'pipeline',
        '--target',
        target,
        '--duration',
        '6s',
        '--rate',
        '40',
        '--fault',
        'kill every 3s after 2s',
      ]);
      expect([0, 99], context(run)).toContain(run.exitCode);
      expect(run.soak?.implementation).toBe('process');
      expect(run.soak?.faults.map((fault) => [fault.action, fault.error])).toEqual([
        ['kill', undefined],
        ['kill', undefined],
      ]);
      const requests = run.report?.load.scenarios[0]?.requests;
      // Answered before, between and after the kills: 40/s for 6 s, less what the kills refused.
      expect(requests?.completed, context(run)).toBeGreaterThan(80);
      expect(run.stdout).not.toContain('soak-token-0123456789');
      expect(await readFile(join(dir, 'process', 'soak.json'), 'utf8')).not.toContain('soak-token-0123456789');
    }, 180_000);

    test('an implementation leaking 16 MB/s, killed once: its slope across both lifetimes is the leak, and the gate says so', async () => {
      const target = await processTarget('leaking', 'test/cli/fixtures/leaking-kv.ts', 5, { LEAK_MB_PER_S: '16' });
      const run = await soak('leaking', [
        'pipeline',
        '--target',
        target,
        '--duration',
        '7s',
        '--rate',
        '20',
        '--fault',
        'kill every 1m after 3s',
        // 16 MB/s is 57,600 MB/h: its interval lies above 14,400 (a quarter of it), wide for a loaded machine.
        '--threshold',
        'rss_slope_mb_per_h: lower>14400',
        '--threshold',
        'rss_slope_mb_per_h: upper<14400',
      ]);
      expect(run.exitCode, context(run)).toBe(99);
      const implementation = run.soak?.trends.series.find((item) => item.process === 'implementation');
      const summary = JSON.stringify({ ...implementation, points: undefined });
      expect(implementation?.lifetimes, summary).toBe(2);
      // Never sampled while down or starting: no reading of a process not ready.
      expect(implementation?.rssMb.min, summary).toBeGreaterThan(20);
      expect(implementation?.slopeMbPerH?.value, summary).toBeGreaterThan(57_600 * 0.5);
      expect(implementation?.slopeMbPerH?.value, summary).toBeLessThan(57_600 * 2);
      expect(thresholdOf(run, 'rss_slope_mb_per_h: lower > 14400')?.ok, summary).toBe(true);
      expect(thresholdOf(run, 'rss_slope_mb_per_h: upper < 14400')?.ok, summary).toBe(false);
    }, 180_000);
  });

  test.each([
    [
      ['--fault', 'explode every 1m'],
      /^svc-harness: soak: --fault "explode every 1m" is not a fault: "explode" is none of kill, restart/,
    ],
    [['--fault', 'pause 10m every 5m'], /it lasts 600 s, as long as its period or longer/],
    [['--threshold', 'recovery_s{stream:x}: max<30'], /recovery_s takes no tag stream; its tags: fault, scenario/],
    [
      ['--threshold', 'rss_slope_mb_per_h{process:redis}: upper<50'],
      /unknown process redis; processes: implementation, harness/,
    ],
  ])('bad input %j is one line, exit 2, before anything starts', async (args, line) => {
    const run = await soak('bad', ['command', '--duration', '2s', ...args], 30_000);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(line);
    expect(run.soak).toBeUndefined();
  });

  test('a process fault on a target the soak did not start is one line naming what it needs', async () => {
    const target = join(dir, 'given.json');
    await writeFile(target, JSON.stringify({ kv: { url: 'http://127.0.0.1:9', token: 't' } }));
    const run = await soak(
      'given',
      ['command', '--target', target, '--duration', '2s', '--fault', 'kill every 1s'],
      30_000,
    );
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      /soak: kill, restart and pause need an implementation the soak starts: a target file with "process"/,
    );
  });
});
