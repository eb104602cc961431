/**
 * One load case through the reference's HTTP interface with autocannon: a fixed number of connections
 * for a bounded duration on loopback. Ops are Redis commands: a /pipeline request of N commands is N.
 */
import autocannon from 'autocannon';
import { httpRequest, jsonBody } from '../src/http/http-client.ts';
import { pathRequest, pipelineRequest, type TextKvRequest } from '../src/protocol/kv/request-forms.ts';

export interface HttpCase {
  readonly label: string;
  readonly command: 'SET' | 'GET';
  /** Commands per HTTP request: 1 uses the path form, more use POST /pipeline. */
  readonly pipeline: number;
}

export interface HttpFigures {
  /** An equivalent autocannon command line (token shown as ***). */
  readonly commandLine: string;
  readonly requestsPerSecond: number;
  readonly opsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-2xx responses, socket errors and timeouts: anything but 0 makes the figure suspect. */
  readonly failures: number;
}

export const benchKey = 'key:__rand_int__';
const benchValue = 'xxx';

/** The kv request forms the suites send too (src/protocol): the path form, or POST /pipeline. */
export function requestFor(testCase: HttpCase): TextKvRequest {
  const command = testCase.command === 'SET' ? ['SET', benchKey, benchValue] : ['GET', benchKey];
  if (testCase.pipeline === 1) return pathRequest('GET', command);
  return pipelineRequest(Array.from({ length: testCase.pipeline }, () => command));
}

/** One request first: the load is only worth measuring if the reference answers it correctly. */
export async function checkCase(kvUrl: string, token: string, testCase: HttpCase): Promise<void> {
  const shape = requestFor(testCase);
  const response = await httpRequest({
    url: new URL(shape.path, kvUrl).toString(),
    method: shape.method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(shape.body === undefined ? {} : { body: shape.body }),
    timeoutMs: 5_000,
  });
  const body = jsonBody(response);
  const items = testCase.pipeline === 1 ? [body] : body;
  const ok =
    response.status === 200 &&
    Array.isArray(items) &&
    items.length === testCase.pipeline &&
    items.every((item) => typeof item === 'object' && item !== null && 'result' in item);
  if (!ok)
    throw new Error(
      `${testCase.label}: the reference answered ${response.status} ${JSON.stringify(body).slice(0, 200)}`,
    );
}

export async function runHttpCase(
  kvUrl: string,
  token: string,
  testCase: HttpCase,
  options: { connections: number; durationSeconds: number },
): Promise<HttpFigures> {
  const shape = requestFor(testCase);
  const url = new URL(shape.path, kvUrl).toString();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const result = await autocannon({
    url,
    method: shape.method,
    headers,
    ...(shape.body === undefined ? {} : { body: shape.body }),
    connections: options.connections,
    duration: options.durationSeconds,
    timeout: 10,
  });
  const succeeded = result['2xx'];
  const commandLine = [
    'autocannon',
    `-c ${options.connections}`,
    `-d ${options.durationSeconds}`,
    `-m ${shape.method}`,
    "-H 'authorization: Bearer ***'",
    "-H 'content-type: application/json'",
    shape.body === undefined ? '' : `-b '${abbreviate(shape.body)}'`,
    url,
  ].filter((part) => part !== '');
  return {
    commandLine: commandLine.join(' '),
    requestsPerSecond: succeeded / result.duration,
    opsPerSecond: (succeeded * testCase.pipeline) / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

function abbreviate(body: string): string {
  return body.length <= 60 ? body : `${body.slice(0, 40)}…(${body.length} bytes)`;
}
