import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  chooseTargets,
  loadTargetFile,
  loadTargetFileSync,
  parseTarget,
  targetFromEnv,
} from '../../src/target/read-target.ts';
import { targetSecrets } from '../../src/target/target.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-target-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('parseTarget', () => {
  test('fills name and dialect defaults', () => {
    expect(parseTarget({ kv: { url: 'http://127.0.0.1:1', token: 't' } }, 'x')).toEqual({
      name: 'target',
      dialect: 'svc',
      kv: { url: 'http://127.0.0.1:1', token: 't' },
    });
  });

  test.each([
    [{}, 'target x: names no area (messaging, kv or management)'],
    [{ kv: { url: 'http://a', token: '' } }, 'target x: kv.token must NOT have fewer than 1 characters'],
    [{ kv: { url: 'localhost:1', token: 't' } }, 'target x: kv.url must be an http:// or https:// URL'],
    [
      { dialect: 'other', kv: { url: 'http://a', token: 't' } },
      'target x: dialect must be equal to one of the allowed values',
    ],
    [{ kv: { url: 'http://a', token: 't', extra: 1 } }, 'target x: kv has "extra", which is no key there'],
    // A misspelt key gets the key meant, and is said before the required key it leaves missing (issue 36).
    [
      { mangement: { url: 'http://a' }, kv: { url: 'http://a', token: 't' } },
      'target x: top level has "mangement", which is no key there; did you mean management?',
    ],
    [{ kv: { ulr: 'http://a', token: 't' } }, 'target x: kv has "ulr", which is no key there; did you mean url?'],
    [[], 'target x: top level must be object'],
  ])('rejects %j with one SVC_CONFIG line', (value, message) => {
    expect(() => parseTarget(value, 'x')).toThrow(message);
  });
});

describe('target files', () => {
  test('async and sync loaders agree', async () => {
    const file = join(dir, 'ok.json');
    await writeFile(
      file,
      JSON.stringify({ name: 'n', dialect: 'upstash', kv: { url: 'https://kv.example', token: 't' } }),
    );
    expect(await loadTargetFile(file)).toEqual(loadTargetFileSync(file));
  });

  test('missing, unreadable and non-JSON files are one line each', async () => {
    await expect(loadTargetFile(join(dir, 'missing.json'))).rejects.toThrow(/missing\.json: no such file$/);
    expect(() => loadTargetFileSync(dir)).toThrow(/: is a directory$/);
    const file = join(dir, 'bad.json');
    await writeFile(file, '{ nope');
    await expect(loadTargetFile(file)).rejects.toThrow(/bad\.json: not JSON \(/);
    expect(() => loadTargetFileSync(file)).toThrow(/bad\.json: not JSON \(/);
  });
});

describe('extra headers and TLS trust', () => {
  test('headers per area and read-only headers are accepted; a bad header name or value is one line', () => {
    const target = parseTarget(
      {
        kv: {
          url: 'https://kv.example',
          token: 't',
          headers: { 'X-Gateway': 'g' },
          readOnlyHeaders: { 'X-Redis-User': 'readonly' },
        },
      },
      'test',
    );
    expect(target.kv?.readOnlyHeaders).toEqual({ 'X-Redis-User': 'readonly' });
    expect(() =>
      parseTarget({ kv: { url: 'https://kv.example', token: 't', headers: { 'bad name': 'v' } } }, 'test'),
    ).toThrow(/kv\.headers has a header name HTTP does not allow/);
    expect(() =>
      parseTarget({ kv: { url: 'https://kv.example', token: 't', headers: { x: 'a\nb' } } }, 'test'),
    ).toThrow(/kv\.headers\.x must be printable ASCII/);
  });

  test('tls.ca is resolved against the target file and must be readable; insecure is a boolean', async () => {
    await writeFile(join(dir, 'ca.pem'), 'not really a CA');
    const file = join(dir, 'tls.json');
    await writeFile(file, JSON.stringify({ tls: { ca: 'ca.pem' }, kv: { url: 'https://kv.example', token: 't' } }));
    expect(loadTargetFileSync(file).tls?.ca).toBe(join(dir, 'ca.pem'));
    await writeFile(file, JSON.stringify({ tls: { ca: 'nope.pem' }, kv: { url: 'https://kv.example', token: 't' } }));
    expect(() => loadTargetFileSync(file)).toThrow(/tls\.ca nope\.pem cannot be read$/);
    expect(() =>
      parseTarget({ tls: { insecure: 'yes' }, kv: { url: 'https://kv.example', token: 't' } }, 'test'),
    ).toThrow(/tls\.insecure must be boolean/);
  });

  test('messaging.adapter: "real-world" as it is, a module path resolved against the target file and readable', async () => {
    const messaging = (adapter: string) => ({ messaging: { url: 'https://a.example', token: 't', adapter } });
    const file = join(dir, 'adapter.json');
    await writeFile(file, JSON.stringify(messaging('real-world')));
    expect(loadTargetFileSync(file).messaging?.adapter).toBe('real-world');
    await writeFile(join(dir, 'adapter.ts'), 'export default () => ({});');
    await writeFile(file, JSON.stringify(messaging('adapter.ts')));
    expect(loadTargetFileSync(file).messaging?.adapter).toBe(join(dir, 'adapter.ts'));
    await writeFile(file, JSON.stringify(messaging('missing.ts')));
    expect(() => loadTargetFileSync(file)).toThrow(/messaging\.adapter missing\.ts cannot be read$/);
    expect(() => parseTarget({ sink: { port: 70000 }, kv: { url: 'https://kv.example', token: 't' } }, 'test')).toThrow(
      /sink\.port/,
    );
  });
});

describe("a target's process (the soak's own implementation)", () => {
  test('cwd and a command with a slash resolve against the target file; a bare command stays for PATH', async () => {
    const file = join(dir, 'process.json');
    const ready = { url: 'http://127.0.0.1:8080/' };
    await writeFile(
      file,
      JSON.stringify({
        kv: { url: 'http://127.0.0.1:8080', token: 't' },
        process: { command: './bin/serve', cwd: 'impl', ready },
      }),
    );
    expect(loadTargetFileSync(file).process).toEqual({
      command: join(dir, 'bin', 'serve'),
      cwd: join(dir, 'impl'),
      ready,
    });
    await writeFile(
      file,
      JSON.stringify({ kv: { url: 'http://a', token: 't' }, process: { command: 'npx', ready: { port: 8080 } } }),
    );
    expect(loadTargetFileSync(file).process).toEqual({ command: 'npx', ready: { port: 8080 } });
  });

  test('no readiness, or a probe of neither kind, is one line', () => {
    expect(() => parseTarget({ kv: { url: 'http://a', token: 't' }, process: { command: 'x' } }, 'x')).toThrow(
      /^target x: process must have required property 'ready'$/,
    );
    expect(() =>
      parseTarget({ kv: { url: 'http://a', token: 't' }, process: { command: 'x', ready: { path: '/' } } }, 'x'),
    ).toThrow(/^target x: process\.ready /);
  });

  test('only environment values whose names say secret are secrets: a port stays a word of the report', () => {
    const target = parseTarget(
      {
        kv: { url: 'http://a', token: 'kv-token' },
        process: { command: 'x', ready: { port: 1 }, env: { PORT: '8080', API_TOKEN: 'p-token', DB_PASSWORD: 'pw-1' } },
      },
      'x',
    );
    expect(targetSecrets(target).sort()).toEqual(['kv-token', 'p-token', 'pw-1']);
  });
});

describe('targetFromEnv', () => {
  test('undefined without any area URL', () => {
    expect(targetFromEnv({ SVC_KV_TOKEN: 't' })).toBeUndefined();
  });

  test('reads every SVC_* variable', () => {
    const target = targetFromEnv({
      SVC_TARGET_NAME: 'env',
      SVC_DIALECT: 'upstash',
      SVC_KV_URL: 'http://127.0.0.1:1',
      SVC_KV_TOKEN: 'a',
      SVC_KV_READONLY_TOKEN: 'b',
      SVC_ADMIN_URL: 'http://127.0.0.1:2',
      SVC_ADMIN_TOKEN: 'c',
    });
    expect(target).toEqual({
      name: 'env',
      dialect: 'upstash',
      kv: { url: 'http://127.0.0.1:1', token: 'a', readOnlyToken: 'b' },
      admin: { url: 'http://127.0.0.1:2', token: 'c' },
    });
  });

  test('a URL without its token is one SVC_CONFIG line', () => {
    expect(() => targetFromEnv({ SVC_KV_URL: 'http://127.0.0.1:1' })).toThrow(
      "target environment (SVC_*): kv must have required property 'token'",
    );
  });
});

describe('chooseTargets', () => {
  const env = { SVC_KV_URL: 'http://127.0.0.1:1', SVC_KV_TOKEN: 'env-token', HOME: '/root' };

  test('no file: the environment target, else none (the embedded reference)', () => {
    expect(chooseTargets('load', [], env)).toMatchObject({ files: [], environment: { name: 'environment' } });
    expect(chooseTargets('load', [], { HOME: '/root' })).toEqual({ files: [] });
  });

  test('a file wins over the environment, which is not even read, and the notice names what is ignored', () => {
    // A malformed environment is no error when a file wins: it is not used.
    const choice = chooseTargets('run', ['t.json'], { ...env, SVC_MGMT_URL: 'ftp://x' });
    expect(choice).toEqual({
      files: ['t.json'],
      notice:
        "run: --target t.json wins over the environment's target; ignored: SVC_KV_URL, SVC_KV_TOKEN, SVC_MGMT_URL",
    });
    expect(chooseTargets('run', ['t.json'], { SVC_KV_TOKEN: 'only a token' })).toEqual({ files: ['t.json'] });
  });
});
