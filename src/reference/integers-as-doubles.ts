/**
 * JSON text with the given integer fields written as doubles (`"deadline":1764000000.0`), at any
 * depth: a fault switch's answer. JSON.parse reads it back as the same numbers, so only a check of
 * the raw text can tell (the spec says integer, and strict clients refuse a fraction).
 */
export function withIntegersAsDoubles(text: string, fields: readonly string[]): string {
  return text.replace(new RegExp(`"(${fields.join('|')})":(-?\\d+)(?=[,}])`, 'g'), '"$1":$2.0');
}
