/** Spec "Endpoints > Area B", Svc-Encoding base64: how an expected string or byte value reads on the wire. */
export function b64(value: string | Uint8Array): string {
  return Buffer.from(value).toString('base64');
}
