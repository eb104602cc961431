/**
 * The signature scheme is the target's to declare (the spec leaves it unshown): against a reference
 * that signs callbacks for the wrong URL, the default scheme (the dialect's JWT) fails the cases on
 * A.signature.verifiable, and the same target declaring `"scheme": "none"` fails none of them and
 * skips the signature case with the reason. The CLI as a user runs it, `serve` as the target.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { waitFor } from '../support/processes.ts';
import { type StartedProcess, startCli } from '../support/run-cli.ts';
import { type RunResult, runConformance } from '../support/self-validation.ts';

let dir = '';
let serve: StartedProcess | undefined;
let jwt: RunResult;
let none: RunResult;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-signature-scheme-'));
  const file = join(dir, 'target.json');
  serve = startCli(
    ['serve', '--fault', 'callback-signed-wrong-sub', '--retry-backoff', '10ms', '--write-target', file],
    { timeoutMs: 180_000 },
  );
  const started = serve;
  if (!(await waitFor(() => started.stdout().includes('Stop with Ctrl-C'), 30_000))) {
    throw new Error(`serve did not start: ${started.stdout()}`);
  }
  const target = JSON.parse(await readFile(file, 'utf8')) as { messaging: Record<string, unknown> };
  const unsigned = join(dir, 'unsigned.json');
  await writeFile(
    unsigned,
    JSON.stringify({ ...target, messaging: { ...target.messaging, signature: { scheme: 'none' } } }),
  );
  // The callback cases of one file are enough: each receives callbacks, signed wrongly here.
  const rules = ['--rules', 'A.signature.verifiable,A.callback.forward-headers'];
  jwt = await runConformance(dir, 'messaging', ['--target', file, ...rules]);
  none = await runConformance(dir, 'messaging', ['--target', unsigned, ...rules]);
}, 300_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.finished;
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the signature scheme a target declares', () => {
  test('by default (the dialect’s JWT), callbacks signed for the wrong URL fail their cases on the signature rule', () => {
    const failing = jwt.cases.filter((item) => item.verdict.kind === 'fail');
    expect(failing.map((item) => item.id)).toContain('messaging.callback.forward');
    for (const item of failing) expect(item.verdict.rule, item.id).toBe('A.signature.verifiable');
    expect(jwt.exitCode, jwt.output.slice(-1500)).toBe(1);
  });

  test('under scheme none nothing fails, and the signature case is skipped with the reason', () => {
    const failing = none.cases.filter((item) => item.verdict.kind === 'fail' || item.verdict.kind === 'error');
    expect(failing.map((item) => `${item.id}: ${item.verdict.reason}`)).toEqual([]);
    const signature = none.cases.find((item) => item.id === 'messaging.signature.verifiable');
    expect(signature?.verdict).toMatchObject({ kind: 'skip', reason: expect.stringContaining('no signature scheme') });
    expect(none.cases.find((item) => item.id === 'messaging.callback.forward')?.verdict.kind).toBe('pass');
  });
});
