/** The request headers of area B: Svc-Encoding and Svc-Response-Format (spec "Endpoints > Area B"). */
import type { KvFaultCheck } from './kv-fault-check.ts';

export interface ResponseOptions {
  readonly format: 'json' | 'resp2';
  readonly base64: boolean;
}

type Header = string | string[] | undefined;

function single(value: Header): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** The answer's form, or an error text (400) for a header the spec refuses. */
export function responseOptions(
  encoding: Header,
  format: Header,
  fault: KvFaultCheck,
): { readonly ok: true; readonly options: ResponseOptions } | { readonly ok: false; readonly error: string } {
  const base64 = single(encoding)?.trim().toLowerCase() === 'base64' && !fault('no-base64');
  // Rule 2 names the values exactly: `JSON` or `Resp2` are "other values" and answer 400.
  const asked = single(format)?.trim();
  let chosen: 'json' | 'resp2' = 'json';
  if (asked === 'resp2') chosen = fault('ignore-response-format') ? 'json' : 'resp2';
  else if (asked !== undefined && asked !== 'json' && !fault('accept-invalid-format')) {
    // Spec rule 2: any Svc-Response-Format other than json or resp2 gives 400.
    return { ok: false, error: `ERR invalid response format ${JSON.stringify(single(format))}: use json or resp2` };
  }
  if (base64 && chosen === 'resp2' && !fault('allow-base64-with-resp2')) {
    // Spec rule 3: Svc-Encoding base64 together with Svc-Response-Format resp2 gives 400.
    return { ok: false, error: 'ERR base64 encoding cannot be combined with the resp2 response format' };
  }
  return { ok: true, options: { format: chosen, base64: base64 && chosen === 'json' } };
}
