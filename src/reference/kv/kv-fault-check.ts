/** A typed view of the fault and silence switches turned on for area B. */
import type { FaultSet } from '../fault-registry.ts';
import type { KvFaultName } from './kv-faults.ts';
import type { KvSilenceCheck } from './kv-silences.ts';

export type KvFaultCheck = (name: KvFaultName) => boolean;

export function kvFaultCheck(faults: FaultSet): KvFaultCheck {
  return (name) => faults.has(name);
}

export function kvSilenceCheck(silences: FaultSet): KvSilenceCheck {
  return (name) => silences.has(name);
}
