/** The integer fields of area C's tables, which the integers-as-doubles faults write as doubles. */
import {
  messagingAccountFields,
  type SpecField,
  searchIndexFields,
} from '../../protocol/management/resource-fields.ts';

function integerFieldsOf(table: Readonly<Record<string, SpecField>>): string[] {
  return Object.entries(table)
    .filter(([, field]) => field.type === 'integer')
    .map(([name]) => name);
}

/** The integer fields of the spec's tables (src/protocol/management/resource-fields.ts). */
export const indexIntegerFields = integerFieldsOf(searchIndexFields);
export const accountIntegerFields = integerFieldsOf(messagingAccountFields);
