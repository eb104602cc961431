/**
 * Base64 over plain byte arrays, for the key-value protocol's `Svc-Encoding: base64` (RFC 4648,
 * standard alphabet, padded). Written here because the protocol layer runs where there is no
 * Buffer and no `atob` (k6), and the alphabet is all there is to it.
 */
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const sextetOf: ReadonlyMap<string, number> = new Map([...alphabet].map((char, index) => [char, index]));
const encoder = new TextEncoder();

/** The base64 text of `value` (a string is taken as its UTF-8 bytes). */
export function toBase64(value: string | Uint8Array): string {
  const bytes = typeof value === 'string' ? encoder.encode(value) : value;
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a = 0, b = 0, c = 0] = [bytes[i], bytes[i + 1], bytes[i + 2]];
    const triple = (a << 16) | (b << 8) | c;
    const left = bytes.length - i;
    out += alphabet[(triple >> 18) & 63]! + alphabet[(triple >> 12) & 63]!;
    out += left > 1 ? alphabet[(triple >> 6) & 63]! : '=';
    out += left > 2 ? alphabet[triple & 63]! : '=';
  }
  return out;
}

/** The bytes of base64 text, or undefined when it is not padded standard base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let at = 0;
  for (let i = 0; i < text.length; i += 4) {
    const sextets = [0, 1, 2, 3].map((k) => sextetOf.get(text[i + k]!) ?? 0);
    const triple = (sextets[0]! << 18) | (sextets[1]! << 12) | (sextets[2]! << 6) | sextets[3]!;
    for (const shift of [16, 8, 0]) if (at < bytes.length) bytes[at++] = (triple >> shift) & 255;
  }
  return bytes;
}
