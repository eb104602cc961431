/**
 * Spec "Endpoints > Area B" rule 1: invalid UTF-8 in a response string is replaced by U+FFFD. The
 * spec does not say how many U+FFFD one invalid sequence becomes, so a run of them is accepted;
 * what a WHATWG decoder gives (one per maximal invalid subpart) is the exact form.
 */
const decoder = new TextDecoder('utf-8', { fatal: false });

export type ReplacementMatch = 'exact' | 'loose' | 'no';

/** How `received` compares with the bytes decoded with replacement. */
export function matchReplacement(received: string, bytes: Uint8Array): ReplacementMatch {
  const exact = decoder.decode(bytes);
  if (received === exact) return 'exact';
  const parts = exact.split(/\uFFFD+/u).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('\\uFFFD+')}$`, 'u').test(received) ? 'loose' : 'no';
}

/** The bytes decoded as a WHATWG UTF-8 decoder with replacement does. */
export function decodeWithReplacement(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** True when the bytes are not valid UTF-8. */
export function isInvalidUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}
