/** Where a scenario's requests go: the area's base URL and the headers every request carries. */
import type { TlsTrust } from '../../http/http-client.ts';
import type { Target } from '../../target/target.ts';

export interface LoadTarget {
  /** The kv base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** Authorization and the target's own headers. */
  readonly headers: Readonly<Record<string, string>>;
  readonly tls?: TlsTrust;
  readonly maxAnswerBytes: number;
}

export function kvLoadTarget(target: Target): LoadTarget | undefined {
  if (!target.kv) return undefined;
  return {
    baseUrl: target.kv.url.replace(/\/+$/, ''),
    headers: { ...target.kv.headers, authorization: `Bearer ${target.kv.token}` },
    ...(target.tls && { tls: target.tls }),
    maxAnswerBytes: target.maxAnswerBytes ?? 100 * 1024 * 1024,
  };
}
