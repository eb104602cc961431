/** The RESP2 bytes a reply is expected to have (spec "Endpoints > Area B": Svc-Response-Format resp2). */

export type Resp2Value =
  | { readonly simple: string }
  | { readonly error: string }
  | number
  | null
  | string
  | Uint8Array
  | readonly Resp2Value[];

/** Encodes a reply: strings and bytes as bulk strings, `{simple}` as `+…`, numbers as `:n`, null as `$-1`. */
export function resp2(value: Resp2Value): Buffer {
  if (value === null) return Buffer.from('$-1\r\n');
  if (typeof value === 'number') return Buffer.from(`:${value}\r\n`);
  if (typeof value === 'string' || value instanceof Uint8Array) {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
    return Buffer.concat([Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n')]);
  }
  if (Array.isArray(value)) return Buffer.concat([Buffer.from(`*${value.length}\r\n`), ...value.map(resp2)]);
  if ('simple' in value) return Buffer.from(`+${value.simple}\r\n`);
  return Buffer.from(`-${(value as { error: string }).error}\r\n`);
}

/** True when the body is one RESP2 error reply (`-CLASS message\r\n`). */
export function isResp2Error(body: Buffer): boolean {
  const text = body.toString('utf8');
  return text.startsWith('-') && text.endsWith('\r\n') && text.indexOf('\r\n') === text.length - 2;
}
