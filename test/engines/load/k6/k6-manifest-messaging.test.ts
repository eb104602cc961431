/**
 * `k6 manifest` and messaging scenarios. Without the target's messaging URL or `sink.url`, a messaging
 * scenario asked for is refused in one line saying why, and left out (said on the log) of the default
 * list. With them, the bundle carries the messaging URL, the sink URL and the dialect's header prefix
 * (never a token), and the TestRun reads the messaging token from the Secret's `messaging-token`.
 * Then the bundle runs on the real k6 as a runner pod would, against the embedded reference: its own
 * setup creates the URL group under `sink.url` with the runner's token, the publishes are accepted,
 * and the target delivers every message to the sink's URL, where no harness inbox awaits them (what
 * the README says: only a `load` run's sink accounts for them, and answers 2xx only for its own), and
 * `k6 merge` of the runner's output has no accounting: its `messages_lost` threshold fails as no data.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { findK6, type K6Binary } from '../../../../src/engines/load/k6/k6-binary.ts';
import { k6Manifest, type ManifestOptions, scriptFile } from '../../../../src/engines/load/k6/k6-manifest.ts';
import { readK6Outputs } from '../../../../src/engines/load/k6/k6-output.ts';
import { mergeK6Outputs } from '../../../../src/engines/load/k6/merge-outputs.ts';
import { parseLoadSettings } from '../../../../src/engines/load/load-settings.ts';
import { mergeParts } from '../../../../src/engines/load/recorder.ts';
import { type EmbeddedReference, startEmbeddedReference } from '../../../../src/reference/embedded.ts';
import { startTargetSink } from '../../../../src/target-sink/start-target-sink.ts';
import { startProcess } from '../../../support/run-cli.ts';
import { harnessRejection } from './k6-fixtures.ts';

const settings = parseLoadSettings({ engine: 'k6', rate: '10', duration: '2s', timeout: '2s' });
const base: ManifestOptions = { parallelism: 1, baseUrl: 'http://kv.example:8080', settings };
const messaging = {
  messagingBaseUrl: 'http://messaging.example:8081',
  sinkUrl: 'https://sink.example/h/sink',
  headerPrefix: 'Upstash-',
};

interface Documents {
  readonly script: string;
  readonly env: readonly { readonly name: string; readonly valueFrom?: unknown; readonly value?: string }[];
  readonly text: string;
}

function documents(text: string): Documents {
  const [configMap, testRun] = parseAllDocuments(text).map((doc) => doc.toJSON()) as [
    { data: Record<string, string> },
    { spec: { runner: { env: Documents['env'] } } },
  ];
  return { script: configMap.data[scriptFile] ?? '', env: testRun.spec.runner.env, text };
}

describe('k6 manifest and messaging scenarios', () => {
  test('a messaging scenario asked for without a messaging URL or a sink.url is refused, saying why', async () => {
    const noUrl = await harnessRejection('SVC_USAGE', k6Manifest({ ...base, scenarios: ['publish-fanout'] }));
    expect(noUrl).toMatch(/^k6 manifest: publish-fanout cannot run on k6: it loads the messaging area/);
    const noSink = await harnessRejection(
      'SVC_USAGE',
      k6Manifest({ ...base, scenarios: ['publish-fanout'], messagingBaseUrl: messaging.messagingBaseUrl }),
    );
    expect(noSink).toContain('no sink.url the pods’ target can reach');
    const badSink = await harnessRejection(
      'SVC_USAGE',
      k6Manifest({ ...base, ...messaging, scenarios: ['publish-fanout'], sinkUrl: 'sink.example' }),
    );
    expect(badSink).toBe('k6 manifest: the sink URL "sink.example" is not an http(s) URL');
  });

  test('the default list leaves messaging scenarios out without the target’s messaging URL, and says so', async () => {
    const lines: string[] = [];
    const { script } = documents(await k6Manifest({ ...base, log: (line) => lines.push(line) }));
    for (const name of ['publish-fanout', 'callback-throughput', 'notify-fanout']) {
      expect(
        lines.some((line) => line.startsWith(`k6 manifest: ${name} is left out: it loads the messaging area`)),
      ).toBe(true);
      expect(script).not.toContain(`"${name}"`);
    }
    expect(script).toContain('"command"');
  });

  test('with them: the bundle carries the URLs and the prefix, the TestRun the messaging token from the Secret', async () => {
    const { script, env, text } = documents(
      await k6Manifest({ ...base, ...messaging, scenarios: ['command', 'publish-fanout'] }),
    );
    expect(script).toContain(`"messagingBaseUrl": "${messaging.messagingBaseUrl}"`);
    expect(script).toContain(`"sinkUrl": "${messaging.sinkUrl}"`);
    expect(script).toContain('"headerPrefix": "Upstash-"');
    expect(script).toContain('"area": "messaging"');
    // The node engine's 20 arrivals (10/s for 2 s), on k6 too.
    expect(script).toContain('"iterations": 20');
    expect(env).toContainEqual({
      name: 'SVC_K6_MESSAGING_TOKEN',
      valueFrom: { secretKeyRef: { name: 'svc-harness-target', key: 'messaging-token' } },
    });
    expect(text).toContain('--from-literal=messaging-token=…');
    expect(text).toContain(`# Messaging scenarios: the target delivers to ${messaging.sinkUrl}`);
    // A kv-only bundle asks the Secret for no messaging token.
    const kvOnly = documents(await k6Manifest({ ...base, ...messaging, scenarios: ['command'] }));
    expect(kvOnly.env.map((item) => item.name)).not.toContain('SVC_K6_MESSAGING_TOKEN');
  });

  test('--param: the bundle carries each scenario’s parameters in its options, defaults filled', async () => {
    const { script } = documents(
      await k6Manifest({
        ...base,
        ...messaging,
        settings: parseLoadSettings({ engine: 'k6', rate: '10', duration: '2s' }, ['endpoints=3']),
        scenarios: ['publish-fanout', 'callback-throughput'],
      }),
    );
    expect(script).toMatch(/"params": \{\s*"endpoints": 3\s*\}/);
    expect(script).toMatch(/"params": \{\s*"fail-share": 0\.05\s*\}/);
    const unknown = await harnessRejection(
      'SVC_USAGE',
      k6Manifest({
        ...base,
        ...messaging,
        settings: parseLoadSettings({ engine: 'k6' }, ['waiters=3']),
        scenarios: ['publish-fanout'],
      }),
    );
    expect(unknown).toBe(
      'k6 manifest: --param waiters=3: no scenario of this run declares waiters (publish-fanout takes endpoints)',
    );
  });

  test('the closed model: notify-fanout asked for is refused, left out of the default list with a line', async () => {
    const closed = parseLoadSettings({ engine: 'k6', model: 'closed', duration: '2s' });
    const refused = await harnessRejection(
      'SVC_USAGE',
      k6Manifest({ ...base, ...messaging, settings: closed, scenarios: ['notify-fanout'] }),
    );
    expect(refused).toMatch(/^k6 manifest: notify-fanout cannot run on k6: it needs the open model: /);
    const lines: string[] = [];
    const { script } = documents(
      await k6Manifest({ ...base, ...messaging, settings: closed, log: (line) => lines.push(line) }),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^k6 manifest: notify-fanout is left out: it needs the open model/),
    );
    expect(script).not.toContain('"notify-fanout"');
    expect(script).toContain('"publish-fanout"');
  });
});

describe('a messaging bundle on the real k6, as a runner pod runs it', () => {
  let k6: K6Binary;
  let reference: EmbeddedReference;
  let dir: string;
  beforeAll(async () => {
    k6 = await findK6({ build: false });
    reference = await startEmbeddedReference([]);
    dir = await mkdtemp(join(tmpdir(), 'svc-k6-manifest-'));
  }, 60_000);
  afterAll(async () => {
    await reference?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('its setup makes the group (of --param endpoints=3) under sink.url, every publish is accepted and delivered there', {
    timeout: 120_000,
  }, async () => {
    const target = reference.target;
    const kv = target.kv;
    const area = target.messaging;
    if (!kv || !area) throw new Error('the embedded reference lacks an area');
    const sink = await startTargetSink({ target, defaultThreads: 0 });
    try {
      const { script, text } = documents(
        await k6Manifest({
          ...base,
          // The pods' own setup reads the parameter from the bundle: a group of 3 endpoints, not 8.
          settings: parseLoadSettings({ engine: 'k6', rate: '10', duration: '2s', timeout: '2s' }, ['endpoints=3']),
          baseUrl: kv.url,
          messagingBaseUrl: area.url,
          sinkUrl: sink.url,
          headerPrefix: 'Svc-',
          scenarios: ['publish-fanout'],
        }),
      );
      for (const secret of [kv.token, area.token]) expect(text.includes(secret)).toBe(false);
      const file = join(dir, scriptFile);
      await writeFile(file, script);
      const output = join(dir, 'pod-0.json');
      const runner = startProcess(
        k6.path,
        [
          'run',
          '--quiet',
          '--no-usage-report',
          '--summary-mode=disabled',
          '--address=',
          '--out',
          `json=${output}`,
          file,
        ],
        {
          cwd: dir,
          timeoutMs: 90_000,
          env: { SVC_K6_TOKEN: kv.token, SVC_K6_MESSAGING_TOKEN: area.token, K6_NO_USAGE_REPORT: 'true' },
        },
      );
      const done = await runner.finished;
      expect(done.exitCode, done.stderr.slice(-2000)).toBe(0);
      const read = await readK6Outputs([output]);
      const parts = read.scenarios.get('publish-fanout')?.parts ?? [];
      const merged = mergeParts(parts);
      const accepted = merged.marks.accepted ?? [];
      expect(accepted).toHaveLength(20);
      expect(merged.counts).toMatchObject({ sent: 20, completed: 20, failed: 0 });
      // Every message of every publish reached the sink's URL, 3 endpoints each, under the runner's own
      // token: no inbox of the harness's claimed them, so the sink answered 404 and the target retried
      // (what the README warns of: something at sink.url must answer 2xx).
      const deadline = Date.now() + 20_000;
      const perEndpoint = () => {
        const counts = new Map<string, number>();
        for (const stray of sink.strays()) {
          const endpoint = /\/dest\/(e\d+)$/.exec(stray.path)?.[1];
          if (endpoint) counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
        }
        return counts;
      };
      const short = () => [...perEndpoint().values()].reduce((sum, count) => sum + count, 0) < 20 * 3;
      while (short() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const counts = perEndpoint();
      expect([...counts.keys()].sort()).toEqual(['e0', 'e1', 'e2']);
      for (const [endpoint, count] of counts) expect(count, endpoint).toBeGreaterThanOrEqual(20);

      // k6 merge has the publishers' side only: no accounting, so the gate on nothing lost has no data and fails.
      const mergedRun = await mergeK6Outputs({ files: [output], reportDir: join(dir, 'merged') });
      const [scenario] = mergedRun.scenarios;
      expect(scenario?.requests).toMatchObject({ sent: 20, completed: 20 });
      expect(scenario?.accounting.messaging).toBeUndefined();
      expect(scenario?.thresholds.find((threshold) => threshold.metric === 'messages_lost')).toMatchObject({
        ok: false,
        value: null,
      });
      expect(mergedRun.exitCode).toBe(99);
    } finally {
      await sink.close();
    }
  });
});
