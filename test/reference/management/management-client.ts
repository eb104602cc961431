/**
 * Helpers for the area C tests: a caller with the target's HTTP Basic credentials. The spec's field
 * tables and their check are the suite's (conformance/support/management-checks.ts), from their one home.
 */
import { httpRequest } from '../../../src/http/http-client.ts';
import type { HttpMethod } from '../../../src/protocol/http-method.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';

export interface MgmtResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** The body parsed as JSON, or undefined. */
  readonly json: unknown;
}

export interface MgmtOptions {
  readonly method?: HttpMethod;
  /** A JSON value to send, or a raw string body. */
  readonly body?: unknown;
  /** The Authorization header; null sends none. @default Basic with the target's credentials */
  readonly authorization?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** Calls area C of a running reference: `mgmt(ref, '/v2/search', { body: {...} })`. */
export async function mgmt(ref: RunningReference, path: string, options: MgmtOptions = {}): Promise<MgmtResult> {
  const target = ref.target.management!;
  const authorization =
    options.authorization === undefined ? basic(target.username, target.password) : options.authorization;
  const body =
    options.body === undefined || typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const res = await httpRequest({
    url: `${target.url}${path}`,
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(authorization !== null && { authorization }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(body !== undefined && { body }),
  });
  const text = res.body.toString('utf8');
  return { status: res.status, headers: res.headers, text, json: parseJson(text) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`not a JSON object: ${JSON.stringify(value)}`);
  }
  return value as JsonObject;
}

/** Creates an index and returns the answer's object (whatever its status). */
export async function createIndex(
  ref: RunningReference,
  body: JsonObject = { name: 'docs', region: 'us-central1', type: 'payg' },
): Promise<JsonObject> {
  return asObject((await mgmt(ref, '/v2/search', { body })).json);
}

export async function getAccount(ref: RunningReference): Promise<MgmtResult> {
  return mgmt(ref, ref.target.dialect === 'upstash' ? '/v2/qstash/user' : '/v2/svc/user');
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
