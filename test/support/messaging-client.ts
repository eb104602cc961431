/**
 * A small caller of area A (messaging) for the reference's tests: Bearer authentication with the
 * target's token unless told otherwise, a raw or JSON body, and the answer's status, text and JSON.
 */
import { request } from 'undici';
import type { Target } from '../../src/target/target.ts';

export interface MessagingAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The parsed body, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface MessagingCall {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer | object;
  /** A token of its own; `null` sends none. @default the target's */
  readonly token?: string | null;
  /** A base URL of its own (another region). @default the target's messaging URL */
  readonly baseUrl?: string;
}

export async function callMessaging(target: Target, path: string, call: MessagingCall = {}): Promise<MessagingAnswer> {
  const messaging = target.messaging;
  if (messaging === undefined) throw new Error('the target has no messaging area');
  const token = call.token === undefined ? messaging.token : call.token;
  const body =
    call.body === undefined || typeof call.body === 'string' || Buffer.isBuffer(call.body)
      ? call.body
      : JSON.stringify(call.body);
  const res = await request(`${call.baseUrl ?? messaging.url}${path}`, {
    method: call.method ?? 'POST',
    headers: { ...(token !== null && { authorization: `Bearer ${token}` }), ...call.headers },
    ...(body !== undefined && { body }),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** Publishes `body` to `destination` with the given headers; answers the message id. */
export async function publish(
  target: Target,
  destination: string,
  headers: Readonly<Record<string, string>> = {},
  body: string | Buffer = 'payload',
): Promise<string> {
  const answer = await callMessaging(target, `/v2/publish/${destination}`, { headers, body });
  if (answer.status !== 200) throw new Error(`publish answered ${answer.status}: ${answer.text}`);
  return (answer.json as { messageId: string }).messageId;
}
