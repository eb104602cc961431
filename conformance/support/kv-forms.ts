/**
 * One command through each request form of area B (the header matrix's list, `requestForms`): a path
 * form's method, the POST body as its last argument, POST /, or the one item of a /pipeline or a
 * /multi-exec. The cases that run one command across every form (credentials, outcomes) share it.
 */
import type { HttpMethod, HttpResponse } from '../../src/suite-kit/suite-api.ts';
import { isRecord, jsonOf } from './kv-checks.ts';
import type { KvCallOptions, KvClient } from './kv-client.ts';
import type { RequestForm } from './kv-oracle.ts';

const pathMethods: Partial<Record<RequestForm, HttpMethod>> = {
  'get-path': 'GET',
  'head-path': 'HEAD',
  'post-path': 'POST',
  'put-path': 'PUT',
};

/** The one-command forms: the answer is the command's own (the others answer an array of items). */
export const oneCommandForms = ['get-path', 'head-path', 'post-path', 'put-path', 'post-body', 'post-root'] as const;

/** Sends `command` through the form (a path form's method, the POST body, POST /, an item). */
export function sendThrough(
  kv: KvClient,
  form: RequestForm,
  command: readonly string[],
  options: KvCallOptions = {},
): Promise<HttpResponse> {
  const method = pathMethods[form];
  if (method !== undefined) return kv.path(method, command, options);
  if (form === 'post-body') return kv.postBody(command.slice(0, -1), command.at(-1) ?? '', [], options);
  if (form === 'post-root') return kv.root(command, options);
  return form === 'pipeline' ? kv.pipeline([command], options) : kv.multiExec([command], options);
}

/** Is the answer a success of the one command (a whole success, or a {result} item)? */
export function ranCommand(res: HttpResponse): boolean {
  if (res.status !== 200) return false;
  const body = jsonOf(res);
  if (Array.isArray(body)) return body.length === 1 && isRecord(body[0]) && 'result' in body[0];
  return isRecord(body) && 'result' in body;
}
