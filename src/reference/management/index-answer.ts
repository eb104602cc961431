/**
 * The search index as area C answers it: the model's object, bent by the fault switches that break
 * one rule of the index object each. A faithful service answers the object as it is.
 */
import type { ManagementFaultCheck } from './management-fault-check.ts';
import { type SearchIndex, unlimitedCapableFields } from './search-index.ts';

/** A JSON object as sent on the wire; faults may give it fields outside the model's types. */
export type WireObject = { [field: string]: unknown };

const capitalized = { free: 'Free', payg: 'Payg', fixed: 'Fixed' } as const;
const respelled = { 'eu-west-1': 'eu-west1', 'us-central1': 'us-central-1' } as const;

export function renderIndex(index: SearchIndex, fault: ManagementFaultCheck): WireObject {
  const wire: WireObject = { ...index };
  if (fault('index-omits-field')) delete wire.creation_time;
  if (fault('index-field-wrong-type')) wire.max_vector_count = String(index.max_vector_count);
  if (fault('index-unlimited-as-minus-two')) {
    for (const field of unlimitedCapableFields) if (index[field] === -1) wire[field] = -2;
  }
  if (fault('partner-email-null') && index.partner_email === '') wire.partner_email = null;
  if (fault('index-type-capitalized')) wire.type = capitalized[index.type];
  if (fault('index-region-respelled')) wire.region = respelled[index.region];
  return wire;
}
