import {
  messagingAccountFields,
  type SpecField,
  searchIndexFields,
} from '../../protocol/management/resource-fields.ts';

/**
 * JSON text with the given integer fields written as doubles (`"deadline":1764000000.0`), at any
 * depth: a fault switch's answer. JSON.parse reads it back as the same numbers, so only a check of
 * the raw text can tell (the spec says integer, and strict clients refuse a fraction).
 */
export function withIntegersAsDoubles(text: string, fields: readonly string[]): string {
  return text.replace(new RegExp(`"(${fields.join('|')})":(-?\\d+)(?=[,}])`, 'g'), '"$1":$2.0');
}

function integerFieldsOf(table: Readonly<Record<string, SpecField>>): string[] {
  return Object.entries(table)
    .filter(([, field]) => field.type === 'integer')
    .map(([name]) => name);
}

/** The integer fields of the spec's tables (src/protocol/management/resource-fields.ts). */
export const indexIntegerFields = integerFieldsOf(searchIndexFields);
export const accountIntegerFields = integerFieldsOf(messagingAccountFields);
