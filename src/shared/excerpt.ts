/**
 * Excerpts that own their characters. V8 keeps `text.slice(…)` as a view on the whole parent string,
 * so a 200-character excerpt of a 10 MB answer, kept in a verdict or an error sample, would keep the
 * 10 MB alive with it (issue 25: the conformance suite peaked at 2 GB against 10 MB answers). Every
 * excerpt the harness keeps of something a target sent goes through here.
 */

/** A copy of `text` that shares no memory with the string it was cut from. */
export function detached(text: string): string {
  // A round trip through bytes makes a new flat string; UTF-16 keeps lone surrogates as they were.
  return text.length < 13 ? text : Buffer.from(text, 'utf16le').toString('utf16le');
}

/** The first `max` characters of `text`, marked with … when cut, as a string of its own. */
export function excerpt(text: string, max: number): string {
  return text.length > max ? `${detached(text.slice(0, max))}…` : text;
}
