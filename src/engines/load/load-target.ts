/** Where a scenario's requests go: the area's base URL and the headers every request carries. */
import type { TlsTrust } from '../../http/http-client.ts';
import { getDialect } from '../../target/dialects.ts';
import type { Target } from '../../target/target.ts';

export interface LoadTarget {
  /** The area's base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** Authorization and the target's own headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** The dialect's prefix of vendor headers (`Svc-`, `Upstash-`): a scenario's `Svc-…` headers are renamed to it. */
  readonly headerPrefix: string;
  readonly tls?: TlsTrust;
  readonly maxAnswerBytes: number;
}

const defaultMaxAnswerBytes = 100 * 1024 * 1024;

export function kvLoadTarget(target: Target): LoadTarget | undefined {
  if (!target.kv) return undefined;
  return {
    baseUrl: target.kv.url.replace(/\/+$/, ''),
    headers: { ...target.kv.headers, authorization: `Bearer ${target.kv.token}` },
    headerPrefix: getDialect(target.dialect).headerPrefix,
    ...(target.tls && { tls: target.tls }),
    maxAnswerBytes: target.maxAnswerBytes ?? defaultMaxAnswerBytes,
  };
}

/** Area A: its base URL (the default region), its Bearer token and headers, the dialect's header prefix. */
export function messagingLoadTarget(target: Target): LoadTarget | undefined {
  if (!target.messaging) return undefined;
  return {
    baseUrl: target.messaging.url.replace(/\/+$/, ''),
    headers: { ...target.messaging.headers, authorization: `Bearer ${target.messaging.token}` },
    headerPrefix: getDialect(target.dialect).headerPrefix,
    ...(target.tls && { tls: target.tls }),
    maxAnswerBytes: target.maxAnswerBytes ?? defaultMaxAnswerBytes,
  };
}

/** The target of the area a scenario loads. */
export function areaLoadTarget(target: Target, area: 'kv' | 'messaging'): LoadTarget | undefined {
  return area === 'kv' ? kvLoadTarget(target) : messagingLoadTarget(target);
}
