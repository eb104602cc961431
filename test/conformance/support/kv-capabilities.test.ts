/**
 * The capability probes block a case on the rule of the capability that broke, on real servers: the
 * reference (whole, and with a fault switched on) and small servers that answer as broken
 * implementations seen in the field do (every reply base64-encoded unasked, /monitor answered with JSON).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, describe, expect, test } from 'vitest';
import {
  type KvCapability,
  requireCapabilities,
  withRequirements,
} from '../../../conformance/support/kv-capabilities.ts';
import { createKvClient } from '../../../conformance/support/kv-client.ts';
import { createCaseContext } from '../../../src/engines/conformance/case-context.ts';
import { Blocked } from '../../../src/suite-kit/check-failure.ts';
import type { Target } from '../../../src/target/target.ts';
import { closeServer, listenOnLoopback } from '../../support/loopback.ts';
import { startTestReference, useTestReference } from '../../support/reference-fixture.ts';

const env = useTestReference();
const servers: Server[] = [];

afterAll(async () => {
  for (const server of servers) await closeServer(server);
});

const every: readonly KvCapability[] = [
  'plain-replies',
  'root-form',
  'path-form',
  'percent-decoding',
  'pipeline',
  'multi-exec',
  'scripting',
  'base64',
  'resp2',
  'monitor-stream',
  'subscribe-stream',
];

/** What requireCapabilities ends with: undefined when every capability is there, else the blocked rule. */
async function blockedRule(target: Target, capabilities: readonly KvCapability[]): Promise<string | undefined> {
  const recorder = createCaseContext({ target, caseId: 'kv.test.capabilities', runId: 'r' });
  try {
    await requireCapabilities(recorder.context, createKvClient(recorder.context), capabilities);
    return undefined;
  } catch (error) {
    if (error instanceof Blocked) return error.rule;
    throw error;
  } finally {
    await recorder.cleanup(5_000);
  }
}

/** A server answering `POST /` as `answer` does, and 404 to the rest. */
async function serverAnswering(answer: (path: string, body: string) => [number, string, string]): Promise<Target> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const [status, type, text] = answer(req.url ?? '/', body);
      res.writeHead(status, { 'content-type': type }).end(text);
    });
  });
  servers.push(server);
  const { url } = await listenOnLoopback(server);
  return { name: 'broken', dialect: 'svc', kv: { url, token: 'std-token' } };
}

describe('kv capability probes', () => {
  test('the reference has every capability', async () => {
    expect(await blockedRule(env.ref.target, every)).toBeUndefined();
  });

  test('a target that does not percent-decode path segments blocks on B.path.percent-decoding', async () => {
    const faulty = await startTestReference(env.redis, { faults: ['no-percent-decoding'] });
    try {
      expect(await blockedRule(faulty.target, ['root-form', 'percent-decoding'])).toBe('B.path.percent-decoding');
      // POST / alone still works: a case resting on it only is not blocked.
      expect(await blockedRule(faulty.target, ['root-form'])).toBeUndefined();
    } finally {
      await faulty.stop();
    }
  });

  test('a target encoding every reply unasked blocks on B.encoding.base64, before the form is blamed', async () => {
    const target = await serverAnswering((_path, body) => {
      const [, text = ''] = JSON.parse(body) as string[];
      return [200, 'application/json', JSON.stringify({ result: Buffer.from(text).toString('base64') })];
    });
    expect(await blockedRule(target, ['root-form'])).toBe('B.encoding.base64');
  });

  test('a /monitor answered 200 with JSON is no event stream: B.monitor.first-ok', async () => {
    const target = await serverAnswering(() => [200, 'application/json', '{"result":"OK"}']);
    expect(await blockedRule(target, ['monitor-stream'])).toBe('B.monitor.first-ok');
  });

  test('a case table naming a case that does not exist is refused', () => {
    expect(() => withRequirements({ 'kv.no.such-case': ['root-form'] }, [])).toThrow(/unknown cases/);
  });
});
