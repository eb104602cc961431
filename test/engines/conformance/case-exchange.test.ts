import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { caseExchange } from '../../../src/engines/conformance/case-exchange.ts';
import type { Exchange } from '../../../src/http/exchange-log.ts';
import { createRedactor } from '../../../src/shared/redact.ts';
import { type Target, targetSecrets } from '../../../src/target/target.ts';

const target: Target = {
  name: 't',
  dialect: 'svc',
  messaging: { url: 'http://127.0.0.1:1', token: 'msg-token-1' },
  kv: { url: 'http://127.0.0.1:2', token: 'kv-token-2', readOnlyToken: 'ro-token-3' },
  management: { url: 'http://127.0.0.1:3', username: 'me@example.com', password: 'mgmt-pass-4' },
} as Target;
const redact = createRedactor(targetSecrets(target));

/** The argv bash makes of a curl line, with the variables a reader would export. */
function argvOf(line: string, env: Record<string, string>): string[] {
  const script = `set -- ${line.replace(/^curl /, '')}; printf '%s\\0' "$@"`;
  const out = execFileSync('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '', ...env } }).toString();
  return out.split('\0').slice(0, -1);
}

const exchange = (over: Partial<Exchange>): Exchange => ({
  method: 'POST',
  url: 'http://127.0.0.1:2/',
  headers: {},
  bodyBytes: 0,
  status: 200,
  contentType: 'application/json',
  answer: '{"result":null}',
  answerBytes: 15,
  ...over,
});

describe('the request behind a failure, as curl', () => {
  test('secrets become the harness variables, and bash reads the line back into the same request', () => {
    const body = `["SET","it's","a \\"b\\" $HOME \`x\`"]`;
    const { curl, answer } = caseExchange(
      exchange({
        headers: { authorization: 'Bearer kv-token-2', 'content-type': 'application/json' },
        body,
        bodyBytes: Buffer.byteLength(body),
        url: 'http://127.0.0.1:2/get/k?_token=ro-token-3',
      }),
      target,
      redact,
    );
    for (const secret of targetSecrets(target)) expect(curl).not.toContain(secret);
    expect(curl).toContain('"$SVC_KV_TOKEN"');
    expect(argvOf(curl, { SVC_KV_TOKEN: 'kv-token-2', SVC_KV_READONLY_TOKEN: 'ro-token-3' })).toEqual([
      '-sS',
      '-i',
      '-X',
      'POST',
      '-H',
      'authorization: Bearer kv-token-2',
      '-H',
      'content-type: application/json',
      '--data-binary',
      body,
      'http://127.0.0.1:2/get/k?_token=ro-token-3',
    ]);
    expect(answer).toBe('200 application/json, 15 bytes: {"result":null}');
  });

  test('Basic credentials become -u with the username and password variables; a message token its own', () => {
    const basic = Buffer.from('me@example.com:mgmt-pass-4').toString('base64');
    const { curl } = caseExchange(
      exchange({ method: 'GET', url: 'http://127.0.0.1:3/v2/svc/user', headers: { authorization: `Basic ${basic}` } }),
      target,
      redact,
    );
    expect(curl).not.toContain(basic);
    expect(argvOf(curl, { SVC_MGMT_USERNAME: 'me@example.com', SVC_MGMT_PASSWORD: 'mgmt-pass-4' })).toEqual([
      '-sS',
      '-i',
      '-X',
      'GET',
      '-u',
      'me@example.com:mgmt-pass-4',
      'http://127.0.0.1:3/v2/svc/user',
    ]);
    const publish = caseExchange(exchange({ headers: { Authorization: 'Bearer msg-token-1' } }), target, redact);
    expect(publish.curl).toContain(`-H 'Authorization: Bearer '"$SVC_TOKEN"`);
    // One token for two areas: the first area's variable.
    const shared = { ...target, kv: { url: 'http://127.0.0.1:2', token: 'msg-token-1' } } as Target;
    const both = caseExchange(exchange({ headers: { Authorization: 'Bearer msg-token-1' } }), shared, redact);
    expect(both.curl).toContain(`-H 'Authorization: Bearer '"$SVC_TOKEN"`);
  });

  test('credentials the target file does not hold are redacted wherever they stand: signing keys, index tokens, other Authorization', () => {
    const { curl, answer } = caseExchange(
      exchange({
        method: 'GET',
        url: 'http://127.0.0.1:3/v2/search/idx?token=index-token-5',
        headers: { authorization: 'Bearer other-token-6', 'x-api-key': 'api-key-7' },
        answer: '{"current":"sig_current_8","next":"sig_next_9","read_only_token":"ro-index-10","name":"idx"}',
      }),
      target,
      redact,
    );
    for (const secret of [
      'index-token-5',
      'other-token-6',
      'api-key-7',
      'sig_current_8',
      'sig_next_9',
      'ro-index-10',
    ]) {
      expect(curl).not.toContain(secret);
      expect(answer).not.toContain(secret);
    }
    expect(curl).toContain(`-H 'authorization: Bearer [redacted]'`);
    expect(answer).toContain('"name":"idx"');
  });

  test('a body that is not text is named by its size; no answer says why; a secret in the answer is redacted', () => {
    const { curl, answer } = caseExchange(
      exchange({ bodyBytes: 70_000, status: undefined, answer: undefined, error: 'connection refused' }),
      target,
      redact,
    );
    expect(curl).toContain('--data-binary @body-of-70000-bytes');
    expect(answer).toBe('no answer: connection refused');
    const leaked = caseExchange(exchange({ answer: '{"token":"kv-token-2"}' }), target, redact);
    expect(leaked.answer).not.toContain('kv-token-2');
  });
});
