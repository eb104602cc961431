/** The areas the reference serves, and every fault and silence switch over all of them. A new area is one entry here. */
import type { FaultSwitch, SilenceSwitch } from './fault-registry.ts';
import { kvReferenceArea } from './kv/kv-reference-area.ts';
import { managementReferenceArea } from './management/management-reference-area.ts';
import { messagingReferenceArea } from './messaging/messaging-reference-area.ts';
import type { ReferenceArea } from './reference-area.ts';

export const referenceAreas: readonly ReferenceArea[] = [
  kvReferenceArea,
  messagingReferenceArea,
  managementReferenceArea,
];

export const allFaults: readonly FaultSwitch[] = referenceAreas.flatMap((area) => area.faults);

export const allSilences: readonly SilenceSwitch[] = referenceAreas.flatMap((area) => area.silences);
